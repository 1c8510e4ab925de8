/// What the webhook sink has done since it was created, and what it is waiting on.
public struct WebhookStatus: Sendable, Equatable {
    /// Events in the outbox, not yet acknowledged with a 2xx.
    public var pending: Int
    /// Body bytes of the pending events.
    public var pendingBytes: Int
    /// Events acknowledged with a 2xx (and removed from the outbox).
    public var delivered: Int
    /// Attempts that failed (any non-2xx or transport error).
    public var failedAttempts: Int
    /// Failures since the last success; the backoff grows with it.
    public var consecutiveFailures: Int
    /// Non-final updates dropped by the `latest` backlog policy.
    public var superseded: Int
    /// Non-final updates dropped because the outbox was over `maxEvents` or `maxBytes`.
    public var droppedOverBound: Int
    /// Non-final updates dropped because the endpoint refused them with a permanent 4xx.
    public var rejected: Int
    /// True after the endpoint answered 410 Gone: nothing more is sent until the sink is restarted.
    public var disabled: Bool
    /// The last failure, e.g. `HTTP 503` or `Couldn't connect to server`; nil after a success.
    public var lastError: String?

    /// `active`, `retrying` or `disabled`: one word for status displays.
    public var state: String { disabled ? "disabled" : consecutiveFailures > 0 ? "retrying" : "active" }
}
