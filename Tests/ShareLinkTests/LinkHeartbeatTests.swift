import Delivery
import Foundation
import Link
import LiveLocation
import Relay
import ShareLink
import Testing
import TestSupport

/// The `link` destination's heartbeats: while a share is live and nothing is posted for it, the
/// device says it is on, and whether it has a GPS fix (against an in-process relay on loopback).
@Suite struct LinkHeartbeatTests {
    final class FixAge: @unchecked Sendable {
        private let lock = NSLock()
        private var age: Duration?
        var value: Duration? {
            get { lock.withLock { age } }
            set { lock.withLock { age = newValue } }
        }
    }

    /// The heartbeats (`event: alive`, no `id:`) in an SSE text, opened with seq 0.
    static func heartbeats(_ text: String, secrets: ShareLinkSecrets) -> [[String: Any]] {
        text.components(separatedBy: "\n\n").compactMap { block -> [String: Any]? in
            let lines = block.split(separator: "\n")
            guard lines.contains("event: alive"), !lines.contains(where: { $0.hasPrefix("id:") }),
                  let data = lines.first(where: { $0.hasPrefix("data: ") }).flatMap({ Base64URL.decode($0.dropFirst(6)) }),
                  let opened = LinkSealing.open(data, secrets: secrets, seq: LinkSealing.aliveSeq) else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(opened)) as? [String: Any]
        }
    }

    @Test func aLiveShareWithNothingNewPostsSealedHeartbeatsSayingWhetherItHasAFix() async throws {
        let secret = Array("heartbeat-test-secret-0123456789abcdef".utf8)
        let server = RelayServer(options: RelayServer.Options(host: "127.0.0.1", port: 0, secrets: [secret]))
        try server.start()
        defer { server.stop() }
        var configuration = LinkConfiguration(relayURL: "http://127.0.0.1:\(server.port)", secret: secret)
        // Long enough that a loaded machine posts the update and looks again within it.
        configuration.aliveInterval = .seconds(3)
        let fixAge = FixAge()
        fixAge.value = .seconds(95)
        let destination = try LinkDestination(configuration: configuration, lastFixAge: { fixAge.value }) { _, _, _ in }
        let share = ShareID(rawValue: "walk")
        let now = WallClock().now
        let location = LiveLocation(latitude: 48.14, longitude: 11.5588, lastUpdateAt: now - .seconds(95), startedAt: now - .seconds(300),
                                    expiresAt: now + .seconds(600), isActive: true, accuracyMeters: 5)
        let update = QueuedEvent(position: 1, event: .updated(shareID: share, seq: 1, location: location), json: Array(#"{"event":"updated","seq":1}"#.utf8))
        let sentAt = ContinuousClock.now
        #expect(await destination.send(update).outcome() == .delivered())
        let secrets = try #require(destination.shareLink(for: share).flatMap { ShareLinkSecrets(link: $0) })
        // Just posted: no heartbeat yet (unless a loaded machine took the interval to get here).
        destination.postHeartbeatsDue()
        if ContinuousClock.now - sentAt < .seconds(2) {
            let before = try LoopbackHTTP.request(port: server.port, "/s/\(secrets.idText)/events", timeoutSeconds: 1)
            #expect(Self.heartbeats(before.text, secrets: secrets).isEmpty, "\(before.text)")
        }

        let running = Task { try await destination.run() }
        defer { running.cancel() }
        var beats: [[String: Any]] = []
        for _ in 0..<24 where beats.isEmpty {
            try await Task.sleep(for: .milliseconds(250))
            beats = Self.heartbeats(try LoopbackHTTP.request(port: server.port, "/s/\(secrets.idText)/events", timeoutSeconds: 1).text, secrets: secrets)
        }
        let noFix = try #require(beats.last)
        #expect(noFix["event"] as? String == "alive")
        #expect(noFix["fix"] as? Bool == false)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let at = try #require((noFix["at"] as? String).flatMap(iso.date(from:)))
        let lastFixAt = try #require((noFix["lastFixAt"] as? String).flatMap(iso.date(from:)))
        #expect(abs(at.timeIntervalSince(lastFixAt) - 95) < 2, "\(noFix)")
        #expect(abs(at.timeIntervalSince1970 - Double(now.millisecondsSince1970) / 1000) < 60)

        // A fix again, standing still (nothing posted): the next heartbeat says so, a second later
        // (the relay keeps one per post timestamp, in seconds).
        fixAge.value = .seconds(1)
        var fix: [String: Any]?
        for _ in 0..<24 where fix == nil {
            try await Task.sleep(for: .milliseconds(250))
            fix = Self.heartbeats(try LoopbackHTTP.request(port: server.port, "/s/\(secrets.idText)/events", timeoutSeconds: 1).text, secrets: secrets)
                .last { $0["fix"] as? Bool == true }
        }
        #expect(fix != nil)
        // The relay never holds it in the trail.
        #expect(server.store.totals.events == 1)
    }

    /// A relay restarted: the update it takes as the share's start here (202) brings the updates
    /// before it again, as many as the device keeps (`keptTrailBytes`, the newest).
    @Test func aRestartedRelayGetsTheUpdatesTheDeviceKeptWithinItsBound() async throws {
        let secret = Array("heartbeat-test-secret-0123456789abcdef".utf8)
        var server = RelayServer(options: RelayServer.Options(host: "127.0.0.1", port: 0, secrets: [secret]))
        try server.start()
        let port = server.port
        defer { server.stop() }
        var configuration = LinkConfiguration(relayURL: "http://127.0.0.1:\(port)", secret: secret)
        configuration.aliveInterval = .zero
        let json = Array(#"{"event":"updated","seq":0,"padding":"0123456789012345678901234567890123456789"}"#.utf8)
        configuration.keptTrailBytes = 4 * (json.count + LinkSealing.overheadByteCount)
        let destination = try LinkDestination(configuration: configuration) { _, _, _ in }
        let share = ShareID(rawValue: "walk")
        let now = WallClock().now
        func send(_ seq: Int) async -> DeliveryOutcome? {
            let location = LiveLocation(latitude: 48.14, longitude: 11.5588, lastUpdateAt: now, startedAt: now,
                                        expiresAt: now + .seconds(600), isActive: true)
            return await destination.send(QueuedEvent(position: Int64(seq), event: .updated(shareID: share, seq: seq, location: location), json: json)).outcome()
        }
        for seq in 1...10 { #expect(await send(seq) == .delivered()) }
        let secrets = try #require(destination.shareLink(for: share).flatMap { ShareLinkSecrets(link: $0) })

        server.stop()
        server = RelayServer(options: RelayServer.Options(host: "127.0.0.1", port: port, secrets: [secret]))
        try server.start()
        #expect(await send(11) == .delivered())
        var seqs: [UInt64] = []
        for _ in 0..<20 where seqs.last != 11 || seqs.count < 4 {
            try await Task.sleep(for: .milliseconds(250))
            seqs = SSEEvent.parse(try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events", timeoutSeconds: 1).text).map(\.id)
        }
        // The bound holds four updates, 11 among them: 8…10 came again; 1…7 were past it.
        #expect(seqs == [8, 9, 10, 11], "\(seqs)")
    }
}

