import Locking

/// One session of a live source (a connection to gpsd, an open serial device), read on a thread
/// of its own that blocks in its reads, never on the cooperative pool.
///
/// `run()` starts the thread and waits for the session's outcome. Cancelling the calling task
/// cancels the session (`cancellation`): the wake-up the thread registered while it blocks (a
/// socket shut down, a byte written to a pipe) makes its blocking call return at once, and the
/// thread closes what it opened and ends.
package protocol LiveSession: Sendable {
    /// Why a session ends (its cases are the source's: `cannotConnect`, `lost`, `unplugged`, …).
    associatedtype End: LiveSessionEnd
    /// The reading thread's name (at most 15 bytes are kept).
    var threadName: String { get }
    /// The session's cancellation, for the reading thread to register its wake-up with and check.
    var cancellation: SessionCancellation { get }
    /// On the session's thread: opens, reads until the end or the cancellation, closes; returns why
    /// it ended.
    func readUntilEnd() -> LiveSessionOutcome<End>
    /// Why the session ended when its thread cannot be started.
    func end(threadNotStarted error: SystemError) -> End
}

/// Why a `LiveSession` ended: one of its cases is `cancelled`.
package protocol LiveSessionEnd: Sendable, Equatable {
    /// The session was cancelled (the source stops).
    static var cancelled: Self { get }
}

/// How a `LiveSession` ended, as its source's reconnection needs to know it.
package struct LiveSessionOutcome<End: LiveSessionEnd>: Sendable {
    package var end: End
    /// The receiver sent something (then the next attempt's backoff starts afresh).
    package var receivedData: Bool

    package init(end: End, receivedData: Bool) {
        self.end = end
        self.receivedData = receivedData
    }

    package var isCancelled: Bool { end == .cancelled }
}

extension LiveSession {
    /// Runs the session on its thread until it ends or the calling task is cancelled.
    package func run() async -> LiveSessionOutcome<End> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<LiveSessionOutcome<End>, Never>) in
                do throws(SystemError) {
                    try startDetachedThread(name: threadName) { [self] in
                        continuation.resume(returning: readUntilEnd())
                    }
                } catch {
                    continuation.resume(returning: LiveSessionOutcome(end: end(threadNotStarted: error), receivedData: false))
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Makes the reading thread stop: a blocked read returns at once.
    package func cancel() { cancellation.cancel() }
}

/// A session's cancellation: a flag, and the wake-up of the reading thread's blocking call while
/// one is registered. The wake-up runs under the lock that `unregister` takes, so it never acts on
/// a descriptor the thread has closed since.
package final class SessionCancellation: Sendable {
    private struct State {
        var cancelled = false
        var wake: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    package init() {}

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the session, waking the reading thread if it registered how.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.wake?()
        }
    }

    /// Registers how to wake the reading thread (shut its socket down, write to its pipe) before it
    /// blocks. Returns false, registering nothing, when the session is already cancelled.
    package func register(wake: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.wake = wake
            return true
        }
    }

    /// Before the thread closes what `wake` acts on.
    package func unregister() {
        state.withLock { $0.wake = nil }
    }
}
