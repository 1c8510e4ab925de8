/// Where and how the webhook sink delivers: one endpoint, its secrets, its outbox and its limits.
public struct WebhookConfiguration: Sendable {
    /// The endpoint, `http://…` or `https://…`. Redirects are not followed.
    public var url: String
    /// Signing secrets; every request carries one signature per secret (rotation). At least one.
    public var secrets: [WebhookSecret]
    /// The SQLite outbox file (created if absent; `-wal` and `-shm` files beside it). One sink per
    /// file: the sink holds an exclusive lock on it.
    public var outboxPath: String
    /// PEM file of CA certificates to trust instead of the system store, for HTTPS.
    public var caFile: String?
    /// Longest time one attempt may take, connecting included.
    public var timeout: Duration
    /// Which undelivered events to keep when a share moves on during an outage.
    public var backlog: BacklogPolicy
    /// Most events the outbox holds; beyond it the oldest non-final updates are dropped.
    public var maxEvents: Int
    /// Most event body bytes the outbox holds; beyond it the oldest non-final updates are dropped.
    public var maxBytes: Int
    /// The wait after a failed attempt.
    public var retry: RetryPolicy

    public init(
        url: String, secrets: [WebhookSecret], outboxPath: String, caFile: String? = nil,
        timeout: Duration = .seconds(10), backlog: BacklogPolicy = .all,
        maxEvents: Int = 100_000, maxBytes: Int = 64 << 20, retry: RetryPolicy = RetryPolicy()
    ) {
        self.url = url
        self.secrets = secrets
        self.outboxPath = outboxPath
        self.caFile = caFile
        self.timeout = timeout
        self.backlog = backlog
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
        self.retry = retry
    }
}

/// What the outbox keeps of a share that produces updates faster than they can be delivered.
public enum BacklogPolicy: String, Sendable, Equatable, CaseIterable {
    /// Every event is delivered (within the outbox's bounds).
    case all
    /// Queuing an `updated` event drops the same share's older undelivered non-final updates; the
    /// final update and `ended` are always kept.
    case latest
}

/// Capped exponential backoff with jitter: after the n-th consecutive failure the sink waits a
/// random time in [d/2, d] where d = min(cap, base × 2^(n-1)), or longer when the server's
/// `Retry-After` asks for it (up to `maxRetryAfter`).
public struct RetryPolicy: Sendable, Equatable {
    public var base: Duration
    public var cap: Duration
    /// The longest `Retry-After` honoured; longer requests wait this long.
    public var maxRetryAfter: Duration

    public init(base: Duration = .seconds(1), cap: Duration = .seconds(300), maxRetryAfter: Duration = .seconds(3600)) {
        self.base = base
        self.cap = cap
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait after `failures` consecutive failures (≥ 1), given the server's Retry-After.
    func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
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
