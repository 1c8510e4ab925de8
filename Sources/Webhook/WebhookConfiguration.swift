import Delivery

/// Where and how the webhook destination delivers: one endpoint, its secrets and its limits.
package struct WebhookConfiguration: Sendable {
    /// The endpoint, `http://…` or `https://…`. Redirects are not followed.
    package var url: String
    /// Signing secrets; every request carries one signature per secret (rotation). At least one.
    package var secrets: [WebhookSecret]
    /// PEM file of CA certificates to trust instead of the system store, for HTTPS.
    package var caFile: String?
    /// Longest time one attempt may take, connecting included.
    package var timeout: Duration
    /// Which undelivered events to keep when a share moves on during an outage.
    package var backlog: BacklogPolicy
    /// Most events its queue in the journal holds; beyond it the oldest non-final updates are dropped.
    package var maxEvents: Int
    /// Most event body bytes its queue holds; beyond it the oldest non-final updates are dropped.
    package var maxBytes: Int
    /// The wait after a failed attempt.
    package var retry: RetryPolicy

    package init(
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
