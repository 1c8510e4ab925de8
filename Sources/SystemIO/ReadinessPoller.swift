#if canImport(Glibc)
import Glibc
#endif
import CTimex
import Locking

/// The process's one thread that waits for descriptors to become readable or writable: blocked in
/// `epoll_wait` with no timeout, it wakes only when a watched descriptor is ready; deadlines are
/// `DeadlineTimer`'s. What `FileDescriptor.wait(until:deadline:)` suspends on.
///
/// libdispatch's read and write sources did this before; they put the process on libdispatch's
/// global queues, whose monitor then woke it every second for as long as it ran (PoolExecutor).
///
/// Each wait is registered once (`EPOLLONESHOT`) under a token of its own, and ends exactly once —
/// ready, timed out or cancelled, whichever comes first — with the descriptor taken out of the
/// epoll set before the waiting task goes on: an event that comes for a wait already ended finds
/// no token and is dropped, so a descriptor closed and its number reused is never confused with it.
final class ReadinessPoller: Sendable {
    private enum Ending {
        case ready, timedOut, cancelled
    }

    private struct Waiter {
        var descriptor: Int32
        var continuation: CheckedContinuation<Bool, any Error>
        /// The deadline's action, dropped when the wait ends otherwise.
        var timeout: DeadlineTimer.ScheduledAction?
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = Locked(State())
    private let epoll: Int32

    /// Started on first use; nil when no epoll instance or thread could be made.
    static let shared: ReadinessPoller? = try? ReadinessPoller()

    private init() throws(SystemError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw SystemError("epoll_create1") }
        try startDetachedThread(name: "livelocd-poll") { [self] in run() }
    }

    func wait(_ descriptor: Int32, _ readiness: Readiness, deadline: ContinuousClock.Instant?) async throws -> Bool {
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            return state.nextToken
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                let failure: (any Error)? = state.withLock { state in
                    if Task.isCancelled { return CancellationError() }
                    // Scheduled first, so that the waiter holds it from the start (an `end` for it
                    // waits for this lock, then finds the waiter).
                    let timeout = deadline.map { deadline in
                        DeadlineTimer.schedule(after: max(.zero, deadline - ContinuousClock.now)) { [self] in end(token, .timedOut) }
                    }
                    var event = epoll_event()
                    event.events = (readiness == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue) | EPOLLONESHOT.rawValue
                    event.data.u64 = token
                    guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
                        let failure = SystemError("epoll_ctl")
                        if let timeout { DeadlineTimer.cancel(timeout) }
                        return failure
                    }
                    state.waiters[token] = Waiter(descriptor: descriptor, continuation: continuation, timeout: timeout)
                    return nil
                }
                if let failure { continuation.resume(throwing: failure) }
            }
        } onCancel: {
            end(token, .cancelled)
        }
    }

    /// Ends the wait `token` (if it has not ended yet): out of the epoll set, then its task goes on.
    private func end(_ token: UInt64, _ ending: Ending) {
        guard let waiter = state.withLock({ state -> Waiter? in
            guard let waiter = state.waiters.removeValue(forKey: token) else { return nil }
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, waiter.descriptor, nil)
            return waiter
        }) else { return }
        if ending != .timedOut, let timeout = waiter.timeout { DeadlineTimer.cancel(timeout) }
        switch ending {
        case .ready: waiter.continuation.resume(returning: true)
        case .timedOut: waiter.continuation.resume(returning: false)
        case .cancelled: waiter.continuation.resume(throwing: CancellationError())
        }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        while true {
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epoll, $0.baseAddress!, Int32($0.count), -1) }
            guard count > 0 else { continue }  // EINTR
            for index in 0..<Int(count) { end(events[index].data.u64, .ready) }
        }
    }
}
