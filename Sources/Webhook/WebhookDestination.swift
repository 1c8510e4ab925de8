import Delivery
import HTTP
import LiveLocation
import SystemIO

/// Share events as signed Standard Webhooks POSTs to one endpoint: the first durable destination.
///
/// Each event is one POST of its JSON object with `webhook-id` (`evt_<shareId>_<seq>`, the same on
/// every attempt and after restarts), `webhook-timestamp` and one `webhook-signature` per secret.
/// One request in flight; what the answer means is `classify`'s, a pure function.
package final class WebhookDestination: Destination {
    package let name = "webhook"
    /// `webhook URL` with the URL's user name and without its password (`HTTPURL.identity`:
    /// `webhook https://alice@example.net/hook`); its query stays: it may address the receiver.
    /// Made once: the runner names its queue with it for every event.
    package let identity: String
    package let queue: QueuePolicy
    private let configuration: WebhookConfiguration
    private let signer: WebhookSigner
    private let client: HTTPClient

    /// - Throws: `WebhookError` for a bad URL or no secret, `HTTPClientError` when libcurl cannot be set up (https:// only).
    package init(configuration: WebhookConfiguration) throws {
        do { _ = try HTTPURL(configuration.url) } catch { throw WebhookError.invalidURL(configuration.url) }
        guard !configuration.secrets.isEmpty else { throw WebhookError.noSecret(path: nil) }
        self.configuration = configuration
        signer = WebhookSigner(secrets: configuration.secrets)
        identity = "webhook \(HTTPURL.identity(configuration.url))"
        // Until this change the identity left the whole `user:password@` out (`…@`): such a queue
        // is this one's when no other webhook configured now differs from this URL in its user only.
        let former = "webhook \(HTTPURL.redacted(configuration.url))"
        queue = QueuePolicy(maxInFlight: 1, backlog: configuration.backlog,
                            maxEvents: configuration.maxEvents, maxBytes: configuration.maxBytes,
                            formerIdentities: former == identity ? [] : [former])
        client = try HTTPClient(url: configuration.url, caFile: configuration.caFile, timeout: configuration.timeout)
    }

    /// The HTTP client's thread: the runner runs there (no thread hop per event).
    package var executor: (any TaskExecutor)? { client.executor }

    package func send(_ event: QueuedEvent) -> DeliveryReceipt {
        let receipt = DeliveryReceipt()
        let timestamp = WallClock().now.millisecondsSince1970 / 1000
        let id = event.idempotencyKey
        let signature = signer.signature(id: id, timestamp: timestamp, body: event.json)
        let headers = ["webhook-id: \(id)", "webhook-timestamp: \(timestamp)", "webhook-signature: \(signature)"]
        let isFinal = event.event.isFinal
        receipt.onAbandon { [client] in client.abort() }
        client.post(body: event.json, headers: headers) { outcome in
            receipt.fulfil(Self.classify(outcome, isFinal: isFinal))
        }
        return receipt
    }

    /// What an HTTP outcome means for the event: 2xx delivered; 410 disables the endpoint; 3xx
    /// (not followed), 5xx, 401/403/404/408/409/423/425/429 and transport errors are retried
    /// (honouring Retry-After); any other 4xx refuses the payload: a non-final update is dropped,
    /// a share's final update or `ended` is retried, never dropped.
    package static func classify(_ outcome: HTTPOutcome, isFinal: Bool) -> DeliveryOutcome {
        switch outcome {
        case .cancelled:
            return .retry(reason: "cancelled")
        case .transportError(let message):
            return .retry(reason: message)
        case .response(let status, _) where (200..<300).contains(status):
            return .delivered()
        case .response(410, _):
            return .disabled(reason: "HTTP 410 Gone")
        case .response(let status, let after) where (300..<400).contains(status):
            return .retry(reason: "HTTP \(status): redirect not followed (misconfigured webhook URL?)", after: after)
        case .response(let status, let after) where retryable4xx.contains(status) || status >= 500:
            return .retry(reason: "HTTP \(status)", after: after)
        case .response(let status, let after):
            if isFinal { return .retry(reason: "HTTP \(status) (final event kept, retrying)", after: after) }
            return .refused(reason: "HTTP \(status)")
        }
    }

    /// 4xx answers that describe the endpoint's state rather than the payload: retried like 5xx.
    static let retryable4xx: Set<Int> = [401, 403, 404, 408, 409, 423, 425, 429]
}
