/// SHA-256 (FIPS 180-4), fed in pieces: `update` as often as needed, then `finalize` once.
///
/// Pure Swift, no Foundation and no C library: the webhook's signatures need only this and HMAC,
/// and linking libcrypto for them cost the daemon 1.4 MB of resident memory.
package struct SHA256: Sendable {
    /// The digest's length, bytes.
    package static let digestByteCount = 32
    /// The block the compression function consumes, bytes.
    package static let blockByteCount = 64

    private var h0: UInt32 = 0x6a09_e667, h1: UInt32 = 0xbb67_ae85, h2: UInt32 = 0x3c6e_f372, h3: UInt32 = 0xa54f_f53a
    private var h4: UInt32 = 0x510e_527f, h5: UInt32 = 0x9b05_688c, h6: UInt32 = 0x1f83_d9ab, h7: UInt32 = 0x5be0_cd19
    /// The bytes of an incomplete block (fewer than 64) waiting for more.
    private var pending: [UInt8] = []
    /// Bytes fed so far.
    private var messageByteCount: UInt64 = 0

    package init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// The digest of `message`, 32 bytes.
    package static func hash(_ message: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(message)
        return hasher.finalize()
    }

    /// Feeds more of the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update($0) }
        if done == nil { update(Array(bytes)) }
    }

    /// Feeds more of the message.
    package mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        messageByteCount &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = min(Self.blockByteCount - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = rest.dropFirst(taken)
            guard pending.count == Self.blockByteCount else { return }
            pending.withUnsafeBufferPointer { compress(blocks: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        let whole = rest.count / Self.blockByteCount * Self.blockByteCount
        if whole > 0 {
            compress(blocks: UnsafeBufferPointer(rebasing: rest.prefix(whole)))
        }
        pending.append(contentsOf: rest.dropFirst(whole))
    }

    /// Pads the message, and returns its digest (32 bytes). The hasher is spent: feed it no more.
    package mutating func finalize() -> [UInt8] {
        let bitCount = messageByteCount &* 8
        var tail = pending
        tail.append(0x80)
        // Zeros up to 8 bytes short of a block's end, then the length in bits, big-endian.
        let zeros = (Self.blockByteCount - (tail.count + 8) % Self.blockByteCount) % Self.blockByteCount
        tail.append(contentsOf: repeatElement(0, count: zeros))
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        tail.withUnsafeBufferPointer { compress(blocks: $0) }
        pending.removeAll()
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestByteCount)
        for word in [h0, h1, h2, h3, h4, h5, h6, h7] {
            digest.append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                                       UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
        }
        return digest
    }

    /// Runs the compression function over whole 64-byte blocks.
    private mutating func compress(blocks: UnsafeBufferPointer<UInt8>) {
        precondition(blocks.count % Self.blockByteCount == 0)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            roundConstants.withUnsafeBufferPointer { k in
                var offset = 0
                // Wrapping index arithmetic: every index is below 64 + blocks.count, and checked
                // arithmetic here halves the throughput.
                while offset < blocks.count {
                    for t in 0..<16 {
                        let i = offset &+ t &* 4
                        w[t] = UInt32(blocks[i]) << 24 | UInt32(blocks[i &+ 1]) << 16
                            | UInt32(blocks[i &+ 2]) << 8 | UInt32(blocks[i &+ 3])
                    }
                    for t in 16..<64 {
                        let w15 = w[t &- 15], w2 = w[t &- 2]
                        let s0 = w15.rotatedRight(7) ^ w15.rotatedRight(18) ^ (w15 >> 3)
                        let s1 = w2.rotatedRight(17) ^ w2.rotatedRight(19) ^ (w2 >> 10)
                        w[t] = w[t &- 16] &+ s0 &+ w[t &- 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for t in 0..<64 {
                        let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                        let choice = (e & f) ^ (~e & g)
                        let t1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
                        let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = sum0 &+ majority
                        h = g; g = f; f = e; e = d &+ t1
                        d = c; c = b; b = a; a = t1 &+ t2
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                    offset &+= Self.blockByteCount
                }
            }
        }
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 &- count) }
}

/// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
private let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
]
