import LiveLocation
import SystemIO

/// Writes each event as one JSON line on standard output (or another descriptor), at once, so a
/// reader sees every event as soon as it happens: one `write` per event, or per batch of events
/// that were all there at the same moment.
public struct StdoutSink: EventSink {
    private let descriptor: FileDescriptor

    public init(descriptor: FileDescriptor = .standardOutput) {
        self.descriptor = descriptor
    }

    /// Throws `SystemError` when the write fails (e.g. EPIPE when the reader went away).
    public func deliver(_ event: ShareEvent) async throws {
        try descriptor.writeAll(event.jsonLineBytes)
    }

    /// Throws `SystemError` when the write fails; none of the events may have been written then.
    public func deliver(contentsOf events: ArraySlice<ShareEvent>) async throws {
        var lines: [UInt8] = []
        lines.reserveCapacity(events.count * 320)
        for event in events { event.appendJSONLine(to: &lines) }
        try descriptor.writeAll(lines)
    }
}
