import Delivery
import HTTP
import LiveLocation
import Locking
import ShareLink
import SystemIO

/// Share events sealed end-to-end to a relay (`livelocd-relay`), for a link anyone can open
/// (issue 33; docs/formats.md, "Share links").
///
/// Each share gets a link `RELAY/s/ID#KEY` (`LinkKeyStore`); each event, as the other durable
/// destinations get it (after the privacy filter), is sealed with AES-256-GCM under the share's
/// key, bound to the link id and the event's seq, and POSTed to `RELAY/api/v1/events` signed with
/// the device's secret. The relay sees the id, seq, kind and expiry, never a coordinate or the key.
/// One request in flight: in order, at least once (the relay acknowledges a seq it has again).
package final class LinkDestination: Destination {
    package let name = "link"
    /// `link RELAY` (no secret in it).
    package let identity: String
    package let queue: QueuePolicy
    private let configuration: LinkConfiguration
    private let keys: LinkKeyStore
    private let client: HTTPClient
    private let announce: @Sendable (_ share: ShareID, _ link: String, _ pageURL: String) -> Void
    /// The last expiry seen per share (an `ended` event has none of its own).
    private let expiries = Locked<[String: Int64]>([:])

    /// - Parameter announce: called once per share when its link is drawn (the link holds the key:
    ///   for the caller's terminal, never a log line).
    /// - Throws: `HTTPClientError` when libcurl cannot be set up (https:// only).
    package init(configuration: LinkConfiguration,
                 announce: @escaping @Sendable (_ share: ShareID, _ link: String, _ pageURL: String) -> Void) throws {
        self.configuration = configuration
        self.announce = announce
        identity = "link \(HTTPURL.identity(configuration.relayURL))"
        queue = QueuePolicy(maxInFlight: 1, backlog: .all, maxEvents: configuration.maxEvents, maxBytes: configuration.maxBytes)
        keys = LinkKeyStore(relayURL: Self.trimmed(configuration.relayURL), directory: configuration.keyDirectory)
        client = try HTTPClient(url: Self.trimmed(configuration.relayURL) + "/api/v1/events", caFile: configuration.caFile,
                                timeout: configuration.timeout)
    }

    package var executor: (any TaskExecutor)? { client.executor }

    /// The link of a share this destination has posted (or is posting) for; nil for another: for
    /// `liveloc status` (its caller only).
    package func shareLink(for share: ShareID) -> String? { keys.link(for: share) }

    package func send(_ event: QueuedEvent) -> DeliveryReceipt {
        let receipt = DeliveryReceipt()
        let share = event.event.shareID
        let secrets: ShareLinkSecrets
        do {
            let (drawn, isNew) = try keys.secrets(for: share)
            secrets = drawn
            if isNew {
                announce(share, drawn.link(relay: Self.trimmed(configuration.relayURL)), drawn.pageURL(relay: Self.trimmed(configuration.relayURL)))
            }
        } catch {
            receipt.fulfil(.retry(reason: "cannot keep the share's link: \(error)"))
            return receipt
        }
        let seq = UInt64(max(event.event.seq, 1))
        let kind: RelayPost.Kind
        let expiresAt: Int64
        switch event.event {
        case .updated(_, _, let location):
            kind = .update
            expiresAt = location.expiresAt.millisecondsSince1970 / 1000
            expiries.withLock { $0[share.rawValue] = expiresAt }
        case .ended:
            kind = .end
            expiresAt = expiries.withLock { $0[share.rawValue] } ?? (WallClock().now.millisecondsSince1970 / 1000)
        }
        let sealed: [UInt8]
        do { sealed = try LinkSealing.seal(event.json, secrets: secrets, seq: seq) } catch {
            receipt.fulfil(.retry(reason: "\(error)"))
            return receipt
        }
        let post = RelayPost(shareID: secrets.idText, seq: seq, kind: kind, expiresAt: expiresAt,
                             timestamp: WallClock().now.millisecondsSince1970 / 1000, body: sealed)
        let isEnd = kind == .end
        receipt.onAbandon { [client] in client.abort() }
        client.post(body: sealed, headers: post.headers(secret: configuration.secret)) { [keys, expiries] outcome in
            let result = Self.classify(outcome, isFinal: event.event.isFinal)
            if isEnd, case .delivered = result {
                keys.forget(share)
                expiries.withLock { $0[share.rawValue] = nil }
            }
            receipt.fulfil(result)
        }
        return receipt
    }

    /// What the relay's answer means: 200 stored (or already there); 410 the relay ended the share
    /// (nothing more to post for it: delivered); 401 (clock or secret), 403, 404, 408, 429, 5xx and
    /// transport errors retried; another 4xx refuses the payload (a final event is retried instead).
    package static func classify(_ outcome: HTTPOutcome, isFinal: Bool) -> DeliveryOutcome {
        switch outcome {
        case .cancelled: return .retry(reason: "cancelled")
        case .transportError(let message): return .retry(reason: message)
        case .response(let status, _) where (200..<300).contains(status): return .delivered()
        case .response(410, _): return .delivered()
        case .response(401, let after): return .retry(reason: "HTTP 401: the relay refuses the signature (secret, or this clock)", after: after)
        case .response(let status, let after) where [403, 404, 408, 429].contains(status) || status >= 500:
            return .retry(reason: "HTTP \(status)", after: after)
        case .response(let status, let after):
            if isFinal { return .retry(reason: "HTTP \(status) (final event kept, retrying)", after: after) }
            return .refused(reason: "HTTP \(status)")
        }
    }

    static func trimmed(_ url: String) -> String {
        var url = url
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
