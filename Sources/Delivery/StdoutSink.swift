import LiveLocation
import SystemIO

/// Writes each event as one JSON line on standard output (or another descriptor), at once: one
/// `write` per event, so a reader sees every event as soon as it happens.
public struct StdoutSink: EventSink {
    private let descriptor: FileDescriptor

    public init(descriptor: FileDescriptor = .standardOutput) {
        self.descriptor = descriptor
    }

    /// Throws `SystemError` when the write fails (e.g. EPIPE when the reader went away).
    public func deliver(_ event: ShareEvent) async throws {
        try descriptor.writeAll(event.jsonLineBytes)
    }
}
