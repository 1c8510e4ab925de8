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
    /// Shares live here (an active update posted, no end yet): their link, their expiry (Unix
    /// seconds) and when anything was last posted for them: what heartbeats are due for.
    private struct LiveShare {
        var secrets: ShareLinkSecrets
        var expiresAt: Int64
        var lastPost: ContinuousClock.Instant
    }
    private let live = Locked<[String: LiveShare]>([:])
    /// Per share, the sealed updates the relay acknowledged (the newest, within `keptTrailBytes`):
    /// what a relay that restarted mid-share gets again.
    private struct KeptTrail {
        var posts: [RelayPost] = []
        var first = 0
        var bytes = 0

        /// Adds `post`, dropping the oldest past `limit` bytes of bodies (in place: no copy of the trail).
        mutating func add(_ post: RelayPost, limit: Int) {
            posts.append(post)
            bytes += post.body.count
            while bytes > limit && first < posts.count {
                bytes -= posts[first].body.count
                posts[first].body = []
                first += 1
            }
            if first > 1024 && first * 2 > posts.count {
                posts.removeFirst(first)
                first = 0
            }
        }
    }
    private let kept = Locked<[String: KeptTrail]>([:])
    private let lastFixAge: (@Sendable () -> Duration?)?

    /// - Parameters:
    ///   - lastFixAge: how long ago the source's newest fix arrived (nil: none yet), for the
    ///     heartbeats; nil when not known (`liveloc share`): they then say nothing of the fix.
    ///   - announce: called once per share when its link is drawn (the link holds the key: for
    ///     the caller's terminal, never a log line).
    /// - Throws: `HTTPClientError` when libcurl cannot be set up (https:// only).
    package init(configuration: LinkConfiguration, lastFixAge: (@Sendable () -> Duration?)? = nil,
                 announce: @escaping @Sendable (_ share: ShareID, _ link: String, _ pageURL: String) -> Void) throws {
        self.configuration = configuration
        self.lastFixAge = lastFixAge
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
            let isActive = location.isActive
            live.withLock { $0[share.rawValue] = isActive ? LiveShare(secrets: secrets, expiresAt: expiresAt, lastPost: .now) : nil }
        case .ended:
            kind = .end
            expiresAt = expiries.withLock { $0[share.rawValue] } ?? (WallClock().now.millisecondsSince1970 / 1000)
            live.withLock { $0[share.rawValue] = nil }
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
        client.post(body: sealed, headers: post.headers(secret: configuration.secret)) { [self] outcome in
            let result = Self.classify(outcome, isFinal: event.event.isFinal)
            if case .delivered = result {
                if isEnd {
                    keys.forget(share)
                    expiries.withLock { $0[share.rawValue] = nil }
                    kept.withLock { $0[share.rawValue] = nil }
                } else {
                    keep(post, for: share.rawValue)
                }
                // The relay began the share here (it restarted): the trail before this post again.
                if case .response(202, _) = outcome { sendTrailAgain(of: share.rawValue, before: post.seq) }
            }
            receipt.fulfil(result)
        }
        return receipt
    }

    /// Posts the heartbeats due (`LinkConfiguration.aliveInterval`) until cancelled.
    package func run() async throws {
        guard configuration.aliveInterval > .zero else { return }
        let tick = min(configuration.aliveInterval / 4, .seconds(15))
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return }
            postHeartbeatsDue()
        }
    }

    /// A heartbeat for each live share nothing was posted for within `aliveInterval`: sealed like
    /// an event (under seq `LinkSealing.aliveSeq`), its plaintext
    /// `{"event":"alive","at":T,"fix":BOOL,"lastFixAt":T}` (`fix` and `lastFixAt` only when the
    /// source is known; `lastFixAt` only when there was a fix). Not journaled: a lost one is
    /// replaced by the next; the relay keeps the newest.
    package func postHeartbeatsDue() {
        let now = ContinuousClock.now
        let interval = configuration.aliveInterval
        let wall = WallClock().now
        let due = live.withLock { shares in
            var due: [(key: String, share: LiveShare)] = []
            for (key, share) in shares where now - share.lastPost >= interval && share.expiresAt > wall.millisecondsSince1970 / 1000 {
                due.append((key, share))
                shares[key]?.lastPost = now
            }
            return due
        }
        guard !due.isEmpty else { return }
        var json = "{\"event\":\"alive\",\"at\":\"\(wall.iso8601)\""
        if let lastFixAge {
            let age = lastFixAge()
            json += ",\"fix\":\(age.map { $0 < Self.fixFreshness } ?? false)"
            if let age { json += ",\"lastFixAt\":\"\((wall - age).iso8601)\"" }
        }
        json += "}"
        for (key, share) in due {
            guard let sealed = try? LinkSealing.seal(Array(json.utf8), secrets: share.secrets, seq: LinkSealing.aliveSeq) else { continue }
            let post = RelayPost(shareID: share.secrets.idText, seq: LinkSealing.aliveSeq, kind: .alive, expiresAt: share.expiresAt,
                                 timestamp: wall.millisecondsSince1970 / 1000, body: sealed)
            client.post(body: sealed, headers: post.headers(secret: configuration.secret)) { [self] outcome in
                // The relay does not have the share (it restarted while nothing was posted): the
                // trail again, which begins it there.
                if case .response(404, _) = outcome { sendTrailAgain(of: key, before: .max) }
            }
        }
    }

    /// Keeps an acknowledged update for a relay that may restart, dropping the share's oldest past
    /// `keptTrailBytes`.
    private func keep(_ post: RelayPost, for share: String) {
        let limit = configuration.keptTrailBytes
        kept.withLock { $0[share, default: KeptTrail()].add(post, limit: limit) }
    }

    /// Posts the kept updates of `share` below `seq` again, in order, signed now: a relay that
    /// restarted mid-share fills in the trail it lost (new viewers see the whole share again).
    /// Not journaled: what this device keeps in memory (`keptTrailBytes`) is what goes.
    private func sendTrailAgain(of share: String, before seq: UInt64) {
        let posts = kept.withLock { trails -> [RelayPost] in
            guard let trail = trails[share] else { return [] }
            return trail.posts[trail.first...].filter { $0.seq < seq }
        }
        let now = WallClock().now.millisecondsSince1970 / 1000
        for var post in posts {
            post.timestamp = now
            client.post(body: post.body, headers: post.headers(secret: configuration.secret)) { _ in }
        }
    }

    /// A fix older than this (by arrival) is no fix: a heartbeat then says `"fix":false`.
    static let fixFreshness: Duration = .seconds(10)

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
