#if canImport(Glibc)
import Glibc
#endif
import Locking

/// What to wait for on a non-blocking descriptor.
package enum Readiness: Sendable {
    case readable
    case writable
}

extension FileDescriptor {
    /// Suspends, without holding a thread, until the descriptor is readable or writable, or until
    /// `deadline` has passed. Returns false at the deadline. Throws `CancellationError` when cancelled,
    /// `SystemError` when the descriptor cannot be watched (one wait per descriptor at a time).
    ///
    /// The descriptor is no longer watched when this returns: it may be closed then, and nothing of
    /// the wait outlives it (a connection's state is freed when it closes, not when its deadline
    /// would have come). It must stay open until then (cancel the waiting task first): closed while
    /// watched, its number could be reused and then taken out of the epoll set by this wait's end.
    package func wait(until readiness: Readiness, deadline: ContinuousClock.Instant?) async throws -> Bool {
        guard let poller = ReadinessPoller.shared else { return try await waitPolling(until: readiness, deadline: deadline) }
        return try await poller.wait(rawValue, readiness, deadline: deadline)
    }

    /// Where no poller thread could be started: `poll` without blocking, then a short sleep.
    private func waitPolling(until readiness: Readiness, deadline: ContinuousClock.Instant?) async throws -> Bool {
        while true {
            if try poll(for: readiness, until: ContinuousClock.now + .milliseconds(1)) { return true }
            if let deadline, ContinuousClock.now >= deadline { return false }
            try await DeadlineTimer.sleep(for: .milliseconds(50))
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
