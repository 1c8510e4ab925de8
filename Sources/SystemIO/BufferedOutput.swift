/// Collects output bytes and writes them in large blocks: for bulk output such as `liveloc decode`.
/// Line-by-line live output (share events) writes each line at once instead.
package struct BufferedOutput {
    private let descriptor: FileDescriptor
    private var buffer: [UInt8] = []
    private let capacity: Int

    package init(_ descriptor: FileDescriptor, capacity: Int = 1 << 16) {
        self.descriptor = descriptor
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    package mutating func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= capacity { try flush() }
    }

    package mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try descriptor.writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
