#if canImport(Glibc)
import Glibc
#endif
import JSONCoding
import LiveLocation
import Locking
import SystemIO

/// Share events as JSON lines on standard output (or another descriptor).
///
/// - `.direct`: written at once by the caller, which waits while the reader is slow: `liveloc
///   share`'s primary output, whose backpressure paces a fast replay.
/// - `.bounded(maxBytes)`: handed to a thread of its own; a reader that stops reading never stalls
///   the caller. Lines that do not fit the buffer are dropped and counted; one log line says when
///   dropping starts and one when it stops (livelocd: stdout is a convenience, not a durable
///   destination). A batch of at most PIPE_BUF bytes that the descriptor takes at once (poll says
///   writable, nothing queued before it) is written by the caller instead: a pipe takes that much
///   whole without blocking, and the writer thread is not woken for it (a wake-up per fix less).
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
        /// The caller is writing a batch itself: later batches wait in the buffer behind it.
        var inlineWriting = false
    }

    private let descriptor: FileDescriptor
    private let mode: Mode
    private let state = Locked(State())
    /// The lines of the batch being written, kept with their capacity between writes.
    private let scratch = Locked<[UInt8]>([])
    private let log: Logger
    private let onClosed: @Sendable () -> Void
    /// The bounded mode's wake-up pipe: the writer thread waits on it.
    private let wakeup: WakeupPipe?

    package init(descriptor: FileDescriptor = .standardOutput, mode: Mode,
                 log: Logger, onClosed: @escaping @Sendable () -> Void = {}) throws(SystemError) {
        self.descriptor = descriptor
        self.mode = mode
        self.log = log
        self.onClosed = onClosed
        guard case .bounded = mode else {
            wakeup = nil
            return
        }
        wakeup = try WakeupPipe()
        try startDetachedThread(name: "livelocd-stdout") { [self] in self.writerLoop() }
    }

    /// Events written (lines), and lines dropped because the reader was too slow.
    package var counts: (written: Int, dropped: Int) { state.withLock { ($0.written, $0.dropped) } }

    /// True once the reader went away.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// What a bounded write changed about dropping, for the log.
    private enum DroppingChange { case startedDropping, writingAgain(droppedSoFar: Int) }

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
            if lines.count <= Int(PIPE_BUF), writeInline(lines, events: events.count) { return }
            let (wake, change) = state.withLock { state -> (Bool, DroppingChange?) in
                guard !state.closed else { return (false, nil) }
                if state.buffer.count + lines.count > maxBytes {
                    state.dropped += events.count
                    defer { state.dropping = true }
                    return (false, state.dropping ? nil : .startedDropping)
                }
                var change: DroppingChange?
                if state.dropping {
                    state.dropping = false
                    change = .writingAgain(droppedSoFar: state.dropped)
                }
                state.buffer += lines
                state.written += events.count
                return (state.writerWaiting && !state.inlineWriting, change)
            }
            // A reader just keeping up starts and stops the dropping with every batch: rate-limited.
            switch change {
            case .startedDropping:
                log.limited(.warning, key: "stdout dropping",
                            "stdout: the reader is not keeping up; dropping events for stdout (other destinations are not affected)") { count, window in
                    "stdout: the reader fell behind \(count.thousandsSeparated) more times in the last \(window.shortText); events for stdout dropped meanwhile"
                }
            case .writingAgain(let dropped):
                log.limited(.notice, key: "stdout writing again", "stdout: writing again; \(dropped) event(s) dropped so far") { _, window in
                    "stdout: writing again after more drops in the last \(window.shortText); \(dropped.thousandsSeparated) event(s) dropped so far"
                }
            case nil:
                break
            }
            if wake { wakeup?.wake() }
        }
    }

    /// Writes `lines` on the caller's thread when nothing is queued before them and the descriptor
    /// takes them without blocking; false when they must go through the writer thread.
    private func writeInline(_ lines: [UInt8], events: Int) -> Bool {
        let mayWrite = state.withLock { state -> Bool in
            guard !state.closed, !state.dropping, state.buffer.isEmpty, state.writerWaiting, !state.inlineWriting else { return false }
            state.inlineWriting = true
            return true
        }
        guard mayWrite else { return false }
        var entry = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
        // Writable, or an error or hang-up that the write then reports (EPIPE: the reader is gone).
        let writable = Glibc.poll(&entry, 1, 0) == 1
        var failure: (any Error)?
        if writable {
            do { try descriptor.writeAll(lines) } catch { failure = error }
        }
        let wake = state.withLock { state -> Bool in
            state.inlineWriting = false
            if writable, failure == nil { state.written += events }
            return !state.buffer.isEmpty && state.writerWaiting
        }
        if let failure { readerGone(failure) }
        if wake { wakeup?.wake() }
        return writable
    }

    private func readerGone(_ error: Error) {
        let first = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard first else { return }
        log.error("stdout: \(error); no more events are written there")
        onClosed()
    }

    private func writerLoop() {
        guard let wakeup else { return }
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
                _ = wakeup.waitForByte()
                continue
            }
            do { try descriptor.writeAll(chunk) } catch {
                readerGone(error)
                return
            }
        }
    }
}
