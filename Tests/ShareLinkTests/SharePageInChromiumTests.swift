import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Relay
import ShareLink
import Testing
import TestSupport

/// The viewer page in a real browser: Debian's chromium, headless, on loopback, against a relay
/// served in-process (its store fed sealed events directly). Skipped without chromium.
@Suite(.serialized) struct SharePageInChromiumTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What the page shows (scripts/share-link-page.py: Chromium headless over the DevTools
    /// protocol, the DOM read until its state is `until`).
    struct Shown: Decodable {
        var state: String?
        var liveness: String?
        var status: String?
        var position: String?
        var updated: String?
        var countdown: String?
        var remaining: String?
        var seq: String?
        var map: String?
        var tiles: Int?
        var markers: Int?
        var markerSize: Int?
        var heading: String?
        var attribution: String?
        var scale: String?
        var saturation: Double?
    }

    static let leaflet = LeafletAssets(directory: LeafletAssets.debianDirectory) != nil

    /// A relay on loopback whose page fetches nothing from outside: tiles none, or from `tilePort`.
    static func relay(tilePort: UInt16? = nil) throws -> RelayServer {
        let secret = Array("chromium-test-secret-0123456789abcdef".utf8)
        var options = RelayServer.Options(host: "127.0.0.1", port: 0, secrets: [secret])
        options.tiles = tilePort.flatMap { MapTiles(template: "http://127.0.0.1:\($0)/{z}/{x}/{y}.png", attribution: "Test tiles © nobody") } ?? .none
        let server = RelayServer(options: options)
        try server.start()
        return server
    }

    /// A loopback port free now (bound, read, closed): for the test's tile server.
    static func freePort() -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length); return getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func open(_ url: String, until state: String, liveness: String? = nil, screenshot: URL? = nil, extra: [String] = []) async throws -> Shown {
        let script = Paths.packageRoot.appendingPathComponent("scripts/share-link-page.py").path
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"),
                                          [script, url, "--until", state, "--timeout", "20"] + (liveness.map { ["--liveness", $0] } ?? [])
                                            + (screenshot.map { ["--screenshot", $0.path] } ?? []) + extra,
                                          timeout: .seconds(90))
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Shown.self, from: Data(result.stdout.utf8))
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test(.enabled(if: chromium != nil, "chromium is not installed (scripts/install-deps installs it)"))
    func theLinkShowsTheDecryptedPositionAndCountdownThenTheEnd() async throws {
        let server = try Self.relay()
        defer { server.stop() }
        let secrets = ShareLinkSecrets.random()
        let now = Date()
        let expires = now.addingTimeInterval(15 * 60)
        func post(_ seq: UInt64, _ json: String, kind: RelayPost.Kind = .update) throws {
            let sealed = try LinkSealing.seal(Array(json.utf8), secrets: secrets, seq: seq)
            let post = RelayPost(shareID: secrets.idText, seq: seq, kind: kind, expiresAt: Int64(expires.timeIntervalSince1970),
                                 timestamp: Int64(now.timeIntervalSince1970), body: sealed)
            #expect(server.store.accept(post, signer: 0, now: Int64(now.timeIntervalSince1970)) == .stored)
        }
        for seq in 1...3 {
            try post(UInt64(seq), """
                {"event":"updated","shareId":"walk","seq":\(seq),"location":{"latitude":\(48.14 + Double(seq) / 1000),"longitude":11.5588,\
                "lastUpdateAt":"\(Self.iso(now.addingTimeInterval(-3)))","startedAt":"\(Self.iso(now.addingTimeInterval(-60)))",\
                "expiresAt":"\(Self.iso(expires))","isActive":true,"accuracy":5.0,"speed":1.4,"course":90.0}}
                """)
        }
        let link = secrets.link(relay: "http://127.0.0.1:\(server.port)")

        let live = try await Self.open(link, until: "live")
        #expect(live.state == "live", "\(live)")
        #expect(live.position == "48.143000, 11.558800")
        // The time left, counted by the page to the share's end (15 min from `now`, less the time the
        // page took to open: under half a second rounds to 900), said in the countdown.
        let left = try #require(Int(live.remaining ?? ""), "\(live)")
        #expect((840...900).contains(left), "\(live)")
        #expect(live.countdown == "ends in \(left / 60) min \(left % 60) s", "\(live)")
        #expect(live.updated?.hasSuffix("s ago") == true)
        #expect(live.seq == "3")

        // A fourth position: the page follows it (a second viewer, as late as the first).
        try post(4, """
            {"event":"updated","shareId":"walk","seq":4,"location":{"latitude":48.144,"longitude":11.5588,\
            "lastUpdateAt":"\(Self.iso(now))","startedAt":"\(Self.iso(now.addingTimeInterval(-60)))",\
            "expiresAt":"\(Self.iso(expires))","isActive":true,"accuracy":5.0}}
            """)
        let moved = try await Self.open(link, until: "live")
        #expect(moved.position == "48.144000, 11.558800" && moved.seq == "4")

        // A wrong key: an error, never a position.
        let wrong = ShareLinkSecrets(id: secrets.id, key: ShareLinkSecrets.random().key)!.link(relay: "http://127.0.0.1:\(server.port)")
        let refused = try await Self.open(wrong, until: "error")
        #expect(refused.state == "error")
        #expect(refused.status?.contains("Cannot decrypt") == true)
        #expect(refused.position == "—")

        try post(5, #"{"event":"ended","shareId":"walk","seq":5,"reason":"stopped"}"#, kind: .end)
        let ended = try await Self.open(link, until: "ended")
        #expect(ended.state == "ended", "\(ended)")
        #expect(ended.status?.hasPrefix("Sharing ended at") == true)
        #expect(ended.countdown?.hasPrefix("ended at") == true)
        #expect(ended.position == "48.144000, 11.558800")
    }

    /// A position minutes old: the page says why from the device's heartbeats (sealed, under seq
    /// 0): "no GPS fix for N min" while they come and say no fix, "standing still" while they say
    /// a fix, "offline" when none came either.
    @Test(.enabled(if: chromium != nil, "chromium is not installed (scripts/install-deps installs it)"))
    func aStalePositionSaysNoGPSFixWhileTheDeviceBeatsAndOfflineWhenItIsSilent() async throws {
        let server = try Self.relay()
        defer { server.stop() }
        let now = Date()
        let expires = now.addingTimeInterval(30 * 60)
        func share(alive: String?) throws -> String {
            let secrets = ShareLinkSecrets.random()
            let update = """
                {"event":"updated","shareId":"walk","seq":1,"location":{"latitude":48.14,"longitude":11.5588,\
                "lastUpdateAt":"\(Self.iso(now.addingTimeInterval(-300)))","startedAt":"\(Self.iso(now.addingTimeInterval(-600)))",\
                "expiresAt":"\(Self.iso(expires))","isActive":true,"accuracy":5.0}}
                """
            let sealed = try LinkSealing.seal(Array(update.utf8), secrets: secrets, seq: 1)
            let at = Int64(now.timeIntervalSince1970)
            #expect(server.store.accept(RelayPost(shareID: secrets.idText, seq: 1, kind: .update, expiresAt: Int64(expires.timeIntervalSince1970),
                                                  timestamp: at - 300, body: sealed), signer: 0, now: at) == .stored)
            if let alive {
                let beat = try LinkSealing.seal(Array(alive.utf8), secrets: secrets, seq: LinkSealing.aliveSeq)
                #expect(server.store.accept(RelayPost(shareID: secrets.idText, seq: 0, kind: .alive, expiresAt: Int64(expires.timeIntervalSince1970),
                                                      timestamp: at, body: beat), signer: 0, now: at) == .stored)
            }
            return secrets.link(relay: "http://127.0.0.1:\(server.port)")
        }
        let beating = #"{"event":"alive","at":"\#(Self.iso(now.addingTimeInterval(-20)))","fix":false,"lastFixAt":"\#(Self.iso(now.addingTimeInterval(-290)))"}"#
        let noFix = try await Self.open(try share(alive: beating), until: "live", liveness: "nofix")
        #expect(noFix.liveness == "nofix", "\(noFix)")
        #expect(noFix.status?.hasPrefix("No GPS fix for 4 min") == true, "\(noFix)")
        #expect(noFix.status?.contains("online") == true)
        #expect(noFix.position == "48.140000, 11.558800")

        let standing = #"{"event":"alive","at":"\#(Self.iso(now.addingTimeInterval(-20)))","fix":true,"lastFixAt":"\#(Self.iso(now.addingTimeInterval(-1)))"}"#
        let still = try await Self.open(try share(alive: standing), until: "live", liveness: "still")
        #expect(still.liveness == "still" && still.status?.contains("standing still") == true, "\(still)")

        let silent = try await Self.open(try share(alive: nil), until: "live", liveness: "offline")
        #expect(silent.liveness == "offline", "\(silent)")
        #expect(silent.status?.hasPrefix("Device offline: nothing heard from it for 5 min") == true, "\(silent)")

        // A heartbeat itself 4 min old (the device went silent after it): offline too.
        let old = #"{"event":"alive","at":"\#(Self.iso(now.addingTimeInterval(-240)))","fix":false}"#
        let lapsed = try await Self.open(try share(alive: old), until: "live", liveness: "offline")
        #expect(lapsed.status?.hasPrefix("Device offline: nothing heard from it for 4 min") == true, "\(lapsed)")
    }

    /// Posts `count` positions going north at 1.4 m/s, heading 0°, the newest now; returns the link.
    static func walk(_ server: RelayServer, count: Int = 6, expires: Date) throws -> (ShareLinkSecrets, String) {
        let secrets = ShareLinkSecrets.random()
        let now = Date()
        for seq in 1...count {
            let json = """
                {"event":"updated","shareId":"walk","seq":\(seq),"location":{"latitude":\(48.14 + Double(seq) * 0.0002),"longitude":11.5588,\
                "lastUpdateAt":"\(iso(now.addingTimeInterval(Double(seq - count))))","startedAt":"\(iso(now.addingTimeInterval(-60)))",\
                "expiresAt":"\(iso(expires))","isActive":true,"accuracy":25.0,"speed":1.4,"course":0.0}}
                """
            let sealed = try LinkSealing.seal(Array(json.utf8), secrets: secrets, seq: UInt64(seq))
            let post = RelayPost(shareID: secrets.idText, seq: UInt64(seq), kind: .update, expiresAt: Int64(expires.timeIntervalSince1970),
                                 timestamp: Int64(now.timeIntervalSince1970), body: sealed)
            #expect(server.store.accept(post, signer: 0, now: Int64(now.timeIntervalSince1970)) == .stored)
        }
        return (secrets, secrets.link(relay: "http://127.0.0.1:\(server.port)"))
    }

    static func end(_ server: RelayServer, _ secrets: ShareLinkSecrets, seq: UInt64, expires: Date) throws {
        let now = Int64(Date().timeIntervalSince1970)
        let sealed = try LinkSealing.seal(Array(#"{"event":"ended","shareId":"walk","seq":\#(seq),"reason":"stopped"}"#.utf8), secrets: secrets, seq: seq)
        #expect(server.store.accept(RelayPost(shareID: secrets.idText, seq: seq, kind: .end, expiresAt: Int64(expires.timeIntervalSince1970),
                                              timestamp: now, body: sealed), signer: 0, now: now) == .stored)
    }

    /// The map (Leaflet from Debian's libjs-leaflet, served by the relay) with tiles from a tile
    /// server (the test's, on loopback): tiles loaded, the attribution shown, the marker with its
    /// heading, a scale; at the end the map is greyed out: its saturation drops.
    @Test(.enabled(if: chromium != nil && leaflet, "chromium or libjs-leaflet is not installed (scripts/install-deps installs them)"))
    func theMapShowsTilesAndTheMarkerWithItsHeadingThenGreysOutAtTheEnd() async throws {
        let tilePort = Self.freePort()
        let server = try Self.relay(tilePort: tilePort)
        defer { server.stop() }
        let expires = Date().addingTimeInterval(15 * 60)
        let (secrets, link) = try Self.walk(server, expires: expires)
        let tiles = ["--tiles-port", "\(tilePort)", "--saturation"]

        let live = try await Self.open(link, until: "live", extra: tiles)
        #expect(live.map == "tiles", "\(live)")
        #expect((live.tiles ?? 0) > 0, "no tile loaded: \(live)")
        #expect(live.attribution?.contains("Test tiles © nobody") == true, "\(live)")
        #expect(live.markers == 1 && live.heading == "0", "\(live)")
        // The marker drawn as drawn in the map: 8 px of radius and its stroke, inside the map.
        #expect((14...22).contains(live.markerSize ?? 0), "\(live)")
        #expect(live.scale?.hasSuffix(" m") == true || live.scale?.hasSuffix(" km") == true, "\(live)")
        #expect(live.position == "48.141200, 11.558800")

        try Self.end(server, secrets, seq: 7, expires: expires)
        let ended = try await Self.open(link, until: "ended", extra: tiles)
        #expect(ended.state == "ended" && ended.markers == 1, "\(ended)")
        let before = try #require(live.saturation), after = try #require(ended.saturation)
        #expect(before > 0.15, "the live map's saturation: \(before)")
        #expect(after < before / 4, "the ended map's saturation \(after) against \(before) live")
    }

    /// Without tiles: a grid, a scale, the marker and the trail, nothing fetched but from the relay.
    /// With LIVELOCD_SCREENSHOTS=1 it keeps the live and ended pages in docs/ for the README.
    @Test(.enabled(if: chromium != nil && leaflet, "chromium or libjs-leaflet is not installed (scripts/install-deps installs them)"))
    func withoutTilesTheMapIsAGridWithAScaleAndTheTrail() async throws {
        let server = try Self.relay()
        defer { server.stop() }
        let expires = Date().addingTimeInterval(45 * 60)
        let (secrets, link) = try Self.walk(server, count: 40, expires: expires)
        let screenshots = ProcessInfo.processInfo.environment["LIVELOCD_SCREENSHOTS"] == "1"
        let docs = Paths.packageRoot.appendingPathComponent("docs")
        let live = try await Self.open(link, until: "live", screenshot: screenshots ? docs.appendingPathComponent("share-link-live.png") : nil,
                                       extra: ["--saturation"])
        #expect(live.map == "grid" && live.tiles == 0 && live.markers == 1, "\(live)")
        #expect((14...22).contains(live.markerSize ?? 0), "\(live)")
        #expect(live.attribution?.contains("©") != true, "\(live)")
        #expect(live.scale != nil, "\(live)")
        try Self.end(server, secrets, seq: 41, expires: expires)
        let ended = try await Self.open(link, until: "ended", screenshot: screenshots ? docs.appendingPathComponent("share-link-ended.png") : nil,
                                        extra: ["--saturation"])
        #expect(ended.state == "ended", "\(ended)")
        #expect((ended.saturation ?? 1) < (live.saturation ?? 0) / 2, "\(live.saturation ?? -1) live, \(ended.saturation ?? -1) ended")
    }

    /// A relay restarted under an open page: the stream's 404 (the new relay does not have the
    /// share yet) does not end the page; it tries again, and once the device brought the share
    /// back it follows it on, the position kept meanwhile.
    @Test(.enabled(if: chromium != nil, "chromium is not installed (scripts/install-deps installs it)"))
    func anOpenPageReconnectsToARestartedRelayOnceTheDeviceBroughtTheShareBack() async throws {
        var server = try Self.relay()
        let port = server.port
        defer { server.stop() }
        let expires = Date().addingTimeInterval(15 * 60)
        let (secrets, link) = try Self.walk(server, count: 3, expires: expires)
        let page = Task { try await Self.open(link, until: "live", extra: ["--min-seq", "5", "--timeout", "45"]) }
        try await Task.sleep(for: .seconds(4))

        server.stop()
        var options = RelayServer.Options(host: "127.0.0.1", port: port, secrets: [Array("chromium-test-secret-0123456789abcdef".utf8)])
        options.tiles = .none
        server = RelayServer(options: options)
        try server.start()
        // Long enough that EventSource's own retry (3 s) meets the new relay without the share: 404.
        try await Task.sleep(for: .seconds(7))
        // The device's next posts: the share begun here at seq 4, the trail again, then seq 5.
        let now = Date()
        func update(_ seq: UInt64) throws -> RelayPost {
            let json = """
                {"event":"updated","shareId":"walk","seq":\(seq),"location":{"latitude":\(48.14 + Double(seq) * 0.0002),"longitude":11.5588,\
                "lastUpdateAt":"\(Self.iso(now))","startedAt":"\(Self.iso(now.addingTimeInterval(-60)))",\
                "expiresAt":"\(Self.iso(expires))","isActive":true,"accuracy":25.0}}
                """
            return RelayPost(shareID: secrets.idText, seq: seq, kind: .update, expiresAt: Int64(expires.timeIntervalSince1970),
                             timestamp: Int64(now.timeIntervalSince1970), body: try LinkSealing.seal(Array(json.utf8), secrets: secrets, seq: seq))
        }
        let at = Int64(now.timeIntervalSince1970)
        #expect(server.store.accept(try update(4), signer: 0, now: at) == .storedMissingTrail)
        for seq in 1...3 { #expect(server.store.accept(try update(UInt64(seq)), signer: 0, now: at) == .stored) }
        #expect(server.store.accept(try update(5), signer: 0, now: at) == .stored)

        let shown = try await page.value
        #expect(shown.state == "live" && shown.seq == "5", "\(shown)")
        #expect(shown.position == "48.141000, 11.558800", "\(shown)")
    }
}

