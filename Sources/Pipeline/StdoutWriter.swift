#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
import Synchronization
import SystemIO

/// Share events as JSON lines on standard output (or another descriptor).
///
/// - `.direct`: written at once by the caller, which waits while the reader is slow: `liveloc
///   share`'s primary output, whose backpressure paces a fast replay.
/// - `.bounded(maxBytes)`: handed to a thread of its own; a reader that stops reading never stalls
///   the caller. Lines that do not fit the buffer are dropped and counted; one log line says when
///   dropping starts and one when it stops (livelocd: stdout is a convenience, not a durable
///   destination).
///
/// Either way, once the reader is gone (EPIPE) nothing more is written and `onClosed` is called once.
package final class StdoutWriter: Sendable {
    package enum Mode: Sendable, Equatable {
        case direct
        case bounded(maxBytes: Int)
    }

    private struct State {
        var buffer: [UInt8] = []
        var closed = false
        var dropping = false
        var dropped = 0
        var written = 0
        var writerWaiting = false
        var finishing = false
    }

    private let descriptor: FileDescriptor
    private let mode: Mode
    private let state = Mutex(State())
    /// The lines of the batch being written, kept with their capacity between writes.
    private let scratch = Mutex<[UInt8]>([])
    private let log: @Sendable (String) -> Void
    private let onClosed: @Sendable () -> Void
    /// The bounded mode's wake-up pipe (read end, write end).
    private let pipeEnds: (Int32, Int32)?

    package init(descriptor: FileDescriptor = .standardOutput, mode: Mode,
                 log: @escaping @Sendable (String) -> Void, onClosed: @escaping @Sendable () -> Void = {}) throws(SystemError) {
        self.descriptor = descriptor
        self.mode = mode
        self.log = log
        self.onClosed = onClosed
        guard case .bounded = mode else {
            pipeEnds = nil
            return
        }
        let wakeup = try FileDescriptor.makePipe()
        pipeEnds = (wakeup.reader.rawValue, wakeup.writer.rawValue)
        try startDetachedThread(name: "livelocd-stdout") { [self] in self.writerLoop() }
    }

    /// Events written (lines), and lines dropped because the reader was too slow.
    package var counts: (written: Int, dropped: Int) { state.withLock { ($0.written, $0.dropped) } }

    /// True once the reader went away.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// Writes `events` as JSON lines.
    package func write(_ events: some Collection<ShareEvent>) {
        guard !events.isEmpty else { return }
        // One buffer kept for every write (its capacity stays): no fresh pages per batch.
        var lines = scratch.withLock { scratch in
            defer { scratch = [] }
            return scratch
        }
        defer {
            lines.removeAll(keepingCapacity: true)
            scratch.withLock { $0 = lines }
        }
        ShareEvent.appendJSONLines(events, to: &lines)
        switch mode {
        case .direct:
            guard !isClosed else { return }
            do {
                try descriptor.writeAll(lines)
                state.withLock { $0.written += events.count }
            } catch {
                readerGone(error)
            }
        case .bounded(let maxBytes):
            let (wake, message) = state.withLock { state -> (Bool, String?) in
                guard !state.closed else { return (false, nil) }
                if state.buffer.count + lines.count > maxBytes {
                    state.dropped += events.count
                    defer { state.dropping = true }
                    return (false, state.dropping ? nil : "stdout: the reader is not keeping up; dropping events for stdout (other destinations are not affected)")
                }
                var message: String?
                if state.dropping {
                    state.dropping = false
                    message = "stdout: writing again; \(state.dropped) event(s) dropped so far"
                }
                state.buffer += lines
                state.written += events.count
                return (state.writerWaiting, message)
            }
            if let message { log(message) }
            if wake, let (_, writeEnd) = pipeEnds {
                var byte: UInt8 = 1
                _ = Glibc.write(writeEnd, &byte, 1)
            }
        }
    }

    private func readerGone(_ error: Error) {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        log("stdout: \(error); no more events are written there")
        onClosed()
    }

    private func writerLoop() {
        guard let (readEnd, _) = pipeEnds else { return }
        while true {
            let chunk = state.withLock { state -> [UInt8]? in
                if state.closed { return nil }
                if state.buffer.isEmpty {
                    state.writerWaiting = true
                    return []
                }
                state.writerWaiting = false
                defer { state.buffer.removeAll(keepingCapacity: true) }
                return state.buffer
            }
            guard let chunk else { return }
            if chunk.isEmpty {
                var byte: UInt8 = 0
                _ = retryingOnInterrupt { Glibc.read(readEnd, &byte, 1) }
                continue
            }
            do { try descriptor.writeAll(chunk) } catch {
                readerGone(error)
                return
            }
        }
    }
}
