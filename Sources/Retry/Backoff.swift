/// Capped exponential backoff with jitter, the package's one: after the n-th consecutive failure
/// the wait is about `initial` × 2^(n-1), at most `cap`, spread by `jitter` so that many clients of
/// one server do not retry in step. Used by the live sources that reconnect (gpsd: 0.25 s doubling
/// to 8 s; a serial receiver: to 4 s) and by the destinations' retries (Delivery's `RetryPolicy`,
/// which adds the server's `Retry-After`). Pure: no clock, no I/O; the caller waits.
package struct Backoff: Sendable, Equatable {
    /// How the wait is spread around the doubling ceiling d.
    package enum Jitter: Sendable, Equatable {
        /// d times a random factor in 1 ± `spread` (0.2: 0.8…1.2 d; the wait may pass the cap by as much).
        case proportional(spread: Double)
        /// A random wait in d/2…d ("equal jitter"): never longer than the cap.
        case equal
    }

    /// The ceiling after the first failure.
    package var initial: Duration
    /// The largest ceiling; doubling stops there.
    package var cap: Duration
    package var jitter: Jitter
    /// Consecutive failures counted by `nextDelay`, cleared by `reset`.
    private var failures = 0

    package init(initial: Duration = .milliseconds(250), cap: Duration = .seconds(8),
                 jitter: Jitter = .proportional(spread: 0.2)) {
        self.initial = initial
        self.cap = cap
        self.jitter = jitter
    }

    /// min(cap, initial × 2^(failures-1)), for `failures` ≥ 1 (fewer count as 1).
    package func ceiling(afterFailures failures: Int) -> Duration {
        var ceiling = initial
        // 62 doublings pass any cap a Duration can hold; the bound keeps a zero `initial` finite.
        for _ in 0..<min(max(failures, 1) - 1, 62) where ceiling < cap { ceiling = ceiling * 2 }
        return min(ceiling, cap)
    }

    /// The wait after `failures` consecutive failures (≥ 1), jittered with `generator`.
    package func delay<R: RandomNumberGenerator>(afterFailures failures: Int, using generator: inout R) -> Duration {
        let ceiling = ceiling(afterFailures: failures)
        switch jitter {
        case .proportional(let spread):
            return ceiling * Double.random(in: (1 - spread)...(1 + spread), using: &generator)
        case .equal:
            return ceiling * Double.random(in: 0.5...1, using: &generator)
        }
    }

    package func delay(afterFailures failures: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterFailures: failures, using: &generator)
    }

    /// Counts one more failure and gives the wait before the next attempt (`delay(afterFailures:)`).
    package mutating func nextDelay<R: RandomNumberGenerator>(using generator: inout R) -> Duration {
        failures += 1
        return delay(afterFailures: failures, using: &generator)
    }

    package mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// After an attempt that worked (a connection that delivered data): start again from `initial`.
    package mutating func reset() { failures = 0 }
}
