#if canImport(Glibc)
import Glibc
#endif
@preconcurrency import Dispatch
import Locking

/// What to wait for on a non-blocking descriptor.
package enum Readiness: Sendable {
    case readable
    case writable
}

extension FileDescriptor {
    /// Suspends, without holding a thread, until the descriptor is readable or writable, or until
    /// `deadline` has passed. Returns false at the deadline. Throws `CancellationError` when cancelled.
    ///
    /// The readiness source and its timer are torn down before this returns: the descriptor may be
    /// closed then, and nothing of the wait outlives it (a connection's state is freed when it closes,
    /// not when its deadline would have come).
    package func wait(until readiness: Readiness, deadline: ContinuousClock.Instant?) async throws -> Bool {
        let queue = DispatchQueue.global()
        let source: any DispatchSourceProtocol = switch readiness {
        case .readable: DispatchSource.makeReadSource(fileDescriptor: rawValue, queue: queue)
        case .writable: DispatchSource.makeWriteSource(fileDescriptor: rawValue, queue: queue)
        }
        let timer = deadline.map { _ in DispatchSource.makeTimerSource(queue: queue) }
        let outcome = WaitOutcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                source.setEventHandler { outcome.settle(.ready); timer?.cancel(); source.cancel() }
                // Runs once, after the source is unregistered: only then does the caller go on.
                source.setCancelHandler {
                    switch outcome.value {
                    case .ready: continuation.resume(returning: true)
                    case .timedOut: continuation.resume(returning: false)
                    case .cancelled, nil: continuation.resume(throwing: CancellationError())
                    }
                }
                if let timer, let deadline {
                    let remaining = max(.zero, deadline - ContinuousClock.now)
                    timer.schedule(deadline: .now() + .microseconds(Int(remaining.wholeMicroseconds)), leeway: .milliseconds(10))
                    timer.setEventHandler { outcome.settle(.timedOut); timer.cancel(); source.cancel() }
                    timer.resume()
                }
                source.resume()
                if Task.isCancelled { outcome.settle(.cancelled); timer?.cancel(); source.cancel() }
            }
        } onCancel: {
            outcome.settle(.cancelled)
            timer?.cancel()
            source.cancel()
        }
    }

    /// `wait(until:deadline:)` with a deadline `timeout` from now (none when nil).
    package func wait(until readiness: Readiness, timeout: Duration? = nil) async throws -> Bool {
        try await wait(until: readiness, deadline: timeout.map { ContinuousClock.now + $0 })
    }

    /// Blocks the calling thread (poll) until the descriptor is readable or writable, or until
    /// `deadline`. Returns false at the deadline. For threads of their own (command-line clients, an HTTP
    /// client's thread), never for tasks on the cooperative pool.
    /// - Throws: `SystemError` (`poll`) when poll fails other than by EINTR.
    package func poll(for readiness: Readiness, until deadline: ContinuousClock.Instant) throws(SystemError) -> Bool {
        var entry = pollfd(fd: rawValue, events: Int16(readiness == .readable ? POLLIN : POLLOUT), revents: 0)
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            // Rounded up, so that a wait never ends just before its deadline.
            let milliseconds = Int32(clamping: (remaining.wholeMicroseconds + 999) / 1000)
            let ready = Glibc.poll(&entry, 1, milliseconds)
            if ready > 0 { return true }  // POLLHUP and POLLERR count: the next call reports them
            if ready < 0 && errno != EINTR { throw SystemError("poll") }
        }
    }
}

extension Duration {
    /// The duration in whole microseconds, rounded down; clamped to about ±292,000 years (a
    /// duration made from an absurd number does not trap).
    package var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let limit: Int64 = 9_000_000_000_000  // seconds: 285,000 years
        return min(max(seconds, -limit), limit) * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}

/// The first of ready, timed out or cancelled; later ones are ignored.
private final class WaitOutcome: Sendable {
    enum Value { case ready, timedOut, cancelled }
    private let state = Locked<Value?>(nil)

    func settle(_ value: Value) {
        state.withLock { if $0 == nil { $0 = value } }
    }

    var value: Value? { state.withLock { $0 } }
}
