/// Cuts an input into chunks whose sizes are drawn from the input's own hash, so that a harness
/// run is reproducible from the input alone (libFuzzer's crash files are all that is needed).
///
/// Sizes are mostly small (1-3 bytes, to split sentences and CR LF pairs) or up to 300 bytes.
package struct InputChunking: Sequence, Sendable {
    package let count: Int
    private let seed: UInt64

    package init(_ input: UnsafeRawBufferPointer) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a 64
        for byte in input { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        count = input.count
        seed = hash
    }

    /// The ranges of the chunks, in order, covering `0 ..< count`.
    package func makeIterator() -> Iterator { Iterator(count: count, state: seed) }

    package struct Iterator: IteratorProtocol {
        let count: Int
        var state: UInt64
        var offset = 0

        package mutating func next() -> Range<Int>? {
            guard offset < count else { return nil }
            let random = splitMix()
            let size = random % 4 == 0 ? 1 + Int(random >> 8 % 3) : 1 + Int(random >> 8 % 300)
            let end = Swift.min(count, offset + size)
            defer { offset = end }
            return offset ..< end
        }

        private mutating func splitMix() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }
}
