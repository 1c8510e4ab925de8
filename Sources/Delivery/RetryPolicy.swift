/// Capped exponential backoff with jitter: after the n-th consecutive failure the destination waits a
/// random time in [d/2, d] where d = min(cap, base × 2^(n-1)), or longer when the server's
/// `Retry-After` asks for it (up to `maxRetryAfter`).
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

    /// The wait after `failures` consecutive failures (≥ 1), given the server's Retry-After.
    package func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
        var ceiling = base
        for _ in 1..<max(failures, 1) {
            if ceiling >= cap { break }
            ceiling *= 2
        }
        ceiling = min(ceiling, cap)
        let ceilingMs = max(ceiling.wholeMilliseconds, 1)
        let backoff = Duration.milliseconds(Int64.random(in: (ceilingMs / 2)...ceilingMs))
        guard let retryAfter else { return backoff }
        return max(backoff, min(retryAfter, maxRetryAfter))
    }
}
