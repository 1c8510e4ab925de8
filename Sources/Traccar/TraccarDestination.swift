import Delivery
import HTTP
import LiveLocation
import SystemIO

/// Sends every accepted fix of a share to a Traccar server in its OsmAnd protocol (what the
/// Traccar Client apps use): one form POST per position, in order, one at a time. A share's final
/// update carries `shareState=ended`; `ended` itself needs no request.
package final class TraccarDestination: Destination {
    package let name = "traccar"
    /// `traccar URL device ID`, the URL with its user name and without its password
    /// (`HTTPURL.identity`). Made once: the runner names its queue with it for every event.
    package let identity: String
    /// Every position is sent (a track, not just the newest point), one request at a time.
    package let queue: QueuePolicy

    private let configuration: TraccarConfiguration
    private let client: HTTPClient
    private let log: Logger

    /// Prepares the HTTP client (libcurl is loaded now for an https:// URL).
    /// - Parameter log: one line for an unknown device.
    /// - Throws: `HTTPClientError` when libcurl cannot be loaded (https:// only).
    package init(configuration: TraccarConfiguration, log: Logger) throws {
        self.configuration = configuration
        self.log = log
        identity = "traccar \(HTTPURL.identity(configuration.url)) device \(configuration.deviceID)"
        // Until this change the identity left the whole `user:password@` out (`…@`), as the webhook's.
        let former = "traccar \(HTTPURL.redacted(configuration.url)) device \(configuration.deviceID)"
        queue = QueuePolicy(maxInFlight: 1, backlog: .all, formerIdentities: former == identity ? [] : [former])
        client = try HTTPClient(caFile: configuration.caFile, timeout: configuration.timeout, maxResponseBytes: 4096, label: "traccar",
                                preparing: configuration.url)
    }

    /// The HTTP client's thread: the runner runs there (no thread hop per event).
    package var executor: (any TaskExecutor)? { client.executor }

    package func send(_ queued: QueuedEvent) -> DeliveryReceipt {
        guard case .updated(let shareID, _, let location) = queued.event else {
            return DeliveryReceipt(.delivered())
        }
        let fields = OsmAndPosition.fields(for: location, shareID: shareID, deviceID: configuration.deviceID)
        let receipt = DeliveryReceipt()
        receipt.onAbandon { [client] in client.abort() }
        client.perform(HTTPRequest(method: .post, url: configuration.url, body: .form(fields))) { [configuration, log] result in
            let outcome = TraccarReply.outcome(of: result, deviceID: configuration.deviceID)
            if case .disabled(let reason) = outcome { log.error("traccar: \(reason)") }
            receipt.fulfil(outcome)
        }
        return receipt
    }
}
