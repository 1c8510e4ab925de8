import Retry

/// A destination's retries: after the n-th consecutive failure the runner waits a random time in
/// [d/2, d] where d = min(cap, base × 2^(n-1)) (Retry's `Backoff`, equal jitter), or longer when
/// the server's `Retry-After` asks for it (up to `maxRetryAfter`).
package struct RetryPolicy: Sendable, Equatable {
    package var base: Duration
    package var cap: Duration
    /// The longest `Retry-After` honoured; longer requests wait this long.
    package var maxRetryAfter: Duration

    package init(base: Duration = .seconds(1), cap: Duration = .seconds(300), maxRetryAfter: Duration = .seconds(3600)) {
        self.base = base
        self.cap = cap
        self.maxRetryAfter = maxRetryAfter
    }

    /// The backoff without the server's say.
    package var backoff: Backoff { Backoff(initial: base, cap: cap, jitter: .equal) }

    /// The wait after `failures` consecutive failures (≥ 1), given the server's Retry-After.
    package func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(afterFailures: failures, retryAfter: retryAfter, using: &generator)
    }

    package func delay<R: RandomNumberGenerator>(afterFailures failures: Int, retryAfter: Duration?,
                                                 using generator: inout R) -> Duration {
        let backoff = backoff.delay(afterFailures: failures, using: &generator)
        guard let retryAfter else { return backoff }
        return max(backoff, min(retryAfter, maxRetryAfter))
    }
}
