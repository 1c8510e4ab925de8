import Delivery

/// Where and how the webhook destination delivers: one endpoint, its secrets and its limits.
public struct WebhookConfiguration: Sendable {
    /// The endpoint, `http://…` or `https://…`. Redirects are not followed.
    public var url: String
    /// Signing secrets; every request carries one signature per secret (rotation). At least one.
    public var secrets: [WebhookSecret]
    /// PEM file of CA certificates to trust instead of the system store, for HTTPS.
    public var caFile: String?
    /// Longest time one attempt may take, connecting included.
    public var timeout: Duration
    /// Which undelivered events to keep when a share moves on during an outage.
    public var backlog: BacklogPolicy
    /// Most events its queue in the journal holds; beyond it the oldest non-final updates are dropped.
    public var maxEvents: Int
    /// Most event body bytes its queue holds; beyond it the oldest non-final updates are dropped.
    public var maxBytes: Int
    /// The wait after a failed attempt.
    public var retry: RetryPolicy

    public init(
        url: String, secrets: [WebhookSecret], caFile: String? = nil,
        timeout: Duration = .seconds(10), backlog: BacklogPolicy = .all,
        maxEvents: Int = 100_000, maxBytes: Int = 64 << 20, retry: RetryPolicy = RetryPolicy()
    ) {
        self.url = url
        self.secrets = secrets
        self.caFile = caFile
        self.timeout = timeout
        self.backlog = backlog
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
        self.retry = retry
    }
}
