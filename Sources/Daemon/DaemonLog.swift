import SystemIO

/// The daemon's log: one line per event on standard error (journald adds the time and unit).
package struct DaemonLog: Sendable {
    private let descriptor: FileDescriptor

    package init(descriptor: FileDescriptor = .standardError) {
        self.descriptor = descriptor
    }

    package func callAsFunction(_ message: String) {
        var line = Array("livelocd: ".utf8)
        // One line per message, whatever it contains.
        for byte in message.utf8 { line.append(byte == UInt8(ascii: "\n") ? UInt8(ascii: " ") : byte) }
        line.append(UInt8(ascii: "\n"))
        try? descriptor.writeAll(line)
    }
}
