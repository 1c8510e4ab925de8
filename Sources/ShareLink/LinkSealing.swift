import CCrypto

/// Sealing one share event for the relay: AES-256-GCM (OpenSSL's libcrypto, loaded on first use) with a fresh 96-bit
/// random nonce per event and the share's link id and the event's seq as associated data, so that
/// the relay, which holds only what this returns, can neither read an event nor move it to another
/// share or another place in the share without the viewer's decryption failing.
///
/// The sealed form is `nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes)`; the associated data is
/// `"liveloc-link-v1" 0x00 ‖ id (16 bytes) ‖ seq (8 bytes, big-endian)` (docs/formats.md, "Share
/// links"). The viewer page (WebCrypto) opens it with the same three parts.
package enum LinkSealing {
    package static let nonceByteCount = 12
    package static let tagByteCount = 16
    /// Bytes a sealed event has beyond its plaintext.
    package static let overheadByteCount = nonceByteCount + tagByteCount
    /// The seq a heartbeat (`RelayPost.Kind.alive`) is sealed with: no event has it (events start
    /// at 1), so a heartbeat cannot stand in for an event; its plaintext says when it was made.
    package static let aliveSeq: UInt64 = 0

    /// What binds a sealed event to its share and its place in it.
    package static func associatedData(id: [UInt8], seq: UInt64) -> [UInt8] {
        Array("liveloc-link-v1".utf8) + [0] + id + (0..<8).reversed().map { UInt8(truncatingIfNeeded: seq >> (8 * UInt64($0))) }
    }

    /// `plaintext` sealed under `secrets.key`, bound to `secrets.id` and `seq`, with a nonce drawn
    /// from the kernel's CSPRNG.
    /// - Throws: `LinkSealingError.crypto` when libcrypto cannot be loaded (or fails).
    package static func seal(_ plaintext: [UInt8], secrets: ShareLinkSecrets, seq: UInt64) throws(LinkSealingError) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<nonceByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return try seal(plaintext, secrets: secrets, seq: seq, nonce: nonce)
    }

    /// `seal` with a given nonce: for the tests' known answers only (a nonce must never repeat under a key).
    package static func seal(_ plaintext: [UInt8], secrets: ShareLinkSecrets, seq: UInt64, nonce: [UInt8]) throws(LinkSealingError) -> [UInt8] {
        precondition(nonce.count == nonceByteCount)
        if let failure = ccrypto_load() { throw .crypto(String(cString: failure)) }
        let aad = associatedData(id: secrets.id, seq: seq)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        let sealed = ciphertext.withUnsafeMutableBufferPointer { out in
            tag.withUnsafeMutableBufferPointer { tagOut in
                ccrypto_aes256gcm_seal(secrets.key, nonce, nonce.count, aad, aad.count, plaintext, plaintext.count,
                                       out.baseAddress, tagOut.baseAddress)
            }
        }
        guard sealed == 1 else { throw .crypto("AES-256-GCM sealing failed") }
        return nonce + ciphertext + tag
    }

    /// The plaintext of `sealed`, or nil when it was not sealed under `secrets.key` for `secrets.id`
    /// and `seq`, or was changed in any bit (or libcrypto cannot be loaded).
    package static func open(_ sealed: [UInt8], secrets: ShareLinkSecrets, seq: UInt64) -> [UInt8]? {
        guard sealed.count >= overheadByteCount, ccrypto_load() == nil else { return nil }
        let nonce = Array(sealed.prefix(nonceByteCount))
        let tag = Array(sealed.suffix(tagByteCount))
        let ciphertext = Array(sealed[nonceByteCount..<(sealed.count - tagByteCount)])
        let aad = associatedData(id: secrets.id, seq: seq)
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let opened = plaintext.withUnsafeMutableBufferPointer { out in
            ccrypto_aes256gcm_open(secrets.key, nonce, nonce.count, aad, aad.count, ciphertext, ciphertext.count, tag, out.baseAddress)
        }
        return opened == 1 ? plaintext : nil
    }
}

/// Why an event could not be sealed.
package enum LinkSealingError: Error, CustomStringConvertible, Sendable, Equatable {
    /// libcrypto cannot be loaded, or sealing failed: why.
    case crypto(String)

    package var description: String {
        switch self {
        case .crypto(let reason): "share link sealing: \(reason)"
        }
    }
}
