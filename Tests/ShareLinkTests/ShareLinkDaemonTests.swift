import Foundation
import ShareLink
import Testing
import TestSupport

/// livelocd with a `link` destination and the real `livelocd-relay`, on loopback.
@Suite struct ShareLinkDaemonTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    static func shareLink(_ harness: DaemonHarness) async throws -> String? {
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let destinations = status["sinks"] as? [[String: Any]] ?? []
        return destinations.first { $0["name"] as? String == "link" }?["shareLink"] as? String
    }

    @Test func theDaemonsShareReachesViewersSealedUnderOneLinkAcrossARestartAndItsKeyGoesAtTheEnd() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.secretFile("link-secret", containing: ShareLinkEndToEndTests.secret + "\n")
        let (relay, port) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile)
        defer { relay.terminate(); relay.waitUntilExit() }
        let keys = harness.directory.appendingPathComponent("links")
        let extra = ["--link.relay_url", "http://127.0.0.1:\(port)", "--link.secret_file", secretFile.path, "--link.key_directory", keys.path,
                     "--control.status_public", "true"]

        var daemon = try await harness.launch(log: Self.drive, speed: 5, extra: extra)
        let started = try await harness.liveloc(["start", "--duration", "15m"])
        try await daemon.waitForLine { jsonObject($0)?["seq"] as? Int == 4 }
        #expect(await eventually(timeout: .seconds(20)) { (try? FileManager.default.contentsOfDirectory(atPath: keys.path))?.count == 1 })
        let link = try #require(try await Self.shareLink(harness))
        let secrets = try #require(ShareLinkSecrets(link: link))
        #expect(link.hasPrefix("http://127.0.0.1:\(port)/s/\(secrets.idText)#"))
        // A public status (anyone on the machine) shows the link sink, not the link.
        let publicStatus = try await harness.liveloc(["status", "--json"], asNobody: true)
        #expect(publicStatus.status == 0, "\(publicStatus.stderr)")
        #expect(publicStatus.stdout.contains("\"link\"") && !publicStatus.stdout.contains(secrets.keyText) && !publicStatus.stdout.contains("shareLink"), "\(publicStatus.stdout)")
        // `liveloc start` printed it to its caller, on stderr.
        #expect(started.stderr.split(separator: "\n").contains("link: \(link)"), "\(started.stderr)")
        // Kept for a restart, readable by its owner only.
        let files = try FileManager.default.contentsOfDirectory(atPath: keys.path)
        let kept = keys.appendingPathComponent(files[0]).path
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == link + "\n")
        #expect((try FileManager.default.attributesOfItem(atPath: kept)[.posixPermissions] as? Int) == 0o600)
        // The log names the page, never the key.
        #expect(daemon.lines(.stderr).contains { $0.contains("/s/\(secrets.idText)") })
        #expect(!daemon.lines(.stderr).contains { $0.contains(secrets.keyText) })

        // A restart goes on under the same link.
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        daemon = try await harness.launch(log: Self.drive, speed: 5, extra: extra)
        _ = try await daemon.waitForLine { jsonObject($0)?["seq"] != nil }
        var linkAfterRestart: String?
        for _ in 0..<40 where linkAfterRestart == nil {
            linkAfterRestart = try await Self.shareLink(harness)
            if linkAfterRestart == nil { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(linkAfterRestart == link)

        // A viewer reads the trail so far: every event opens with the link's key, in order.
        let stream = try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events", timeoutSeconds: 2)
        let events = SSEEvent.parse(stream.text)
        #expect(events.count >= 4, "\(stream.text)")
        let opened = events.compactMap { LinkSealing.open(Base64URL.decode($0.data) ?? [], secrets: secrets, seq: $0.id) }
        #expect(opened.count == events.count)
        #expect(events.map(\.id) == events.map(\.id).sorted() && Set(events.map(\.id)).count == events.count)
        // Each opened event this run printed is exactly what it printed.
        let printed = Dictionary(daemon.lines(.stdout).compactMap { line in (jsonObject(line)?["seq"] as? Int).map { (UInt64($0), line) } },
                                 uniquingKeysWith: { first, _ in first })
        let matched = zip(events, opened).filter { printed[$0.0.id] != nil }
        #expect(!matched.isEmpty)
        #expect(matched.allSatisfy { printed[$0.0.id] == String(decoding: $0.1, as: UTF8.self) })
        #expect(!stream.text.contains("latitude"))

        _ = try await harness.liveloc(["stop"])
        try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        // Its end delivered, the key is gone from the device.
        #expect(await eventually(timeout: .seconds(20)) { (try? FileManager.default.contentsOfDirectory(atPath: keys.path))?.isEmpty == true })
        let ended = try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events", timeoutSeconds: 5)
        #expect(SSEEvent.parse(ended.text).last?.event == "end")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// The relay is a cache, the device the source of truth: a relay restarted mid-share (all its
    /// memory gone) takes the device's next post as the share's start here (202), the device sends
    /// the trail again, and a viewer of the same link sees the whole share from seq 1.
    @Test func aRelayRestartedMidShareGetsTheWholeTrailBackFromTheDevice() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.secretFile("link-secret", containing: ShareLinkEndToEndTests.secret + "\n")
        var (relay, port) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile)
        defer { relay.terminate(); relay.waitUntilExit() }
        let daemon = try await harness.launch(log: Self.drive, speed: 5, extra: [
            "--link.relay_url", "http://127.0.0.1:\(port)", "--link.secret_file", secretFile.path, "--control.status_public", "true"])
        _ = try await harness.liveloc(["start", "--duration", "15m"])
        try await daemon.waitForLine { jsonObject($0)?["seq"] as? Int == 6 }
        let link = try #require(try await Self.shareLink(harness))
        let secrets = try #require(ShareLinkSecrets(link: link))
        #expect(await eventually(timeout: .seconds(20)) {
            SSEEvent.parse((try? LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events", timeoutSeconds: 1).text) ?? "").count >= 6
        })

        relay.terminate()
        relay.waitUntilExit()
        (relay, _) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile, port: port)
        // The new relay knew nothing; the device's posts bring the share back, from seq 1.
        var events: [SSEEvent] = []
        for _ in 0..<30 where events.first?.id != 1 || events.count < 8 {
            try await Task.sleep(for: .milliseconds(500))
            events = SSEEvent.parse((try? LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events", timeoutSeconds: 1).text) ?? "")
        }
        #expect(events.first?.id == 1, "\(events.map(\.id))")
        #expect(events.map(\.id) == Array(1...UInt64(max(events.count, 1))), "\(events.map(\.id))")
        #expect(events.allSatisfy { LinkSealing.open(Base64URL.decode($0.data) ?? [], secrets: secrets, seq: $0.id) != nil })
        #expect(try await Self.shareLink(harness) == link)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// The whole way: `liveloc start` prints the link, Chromium opens it (the real relay, no
    /// tiles: nothing leaves loopback) and shows the share live on the map, then ended after
    /// `liveloc stop`.
    @Test(.enabled(if: SharePageInChromiumTests.chromium != nil, "chromium is not installed (scripts/install-deps installs it)"))
    func aLinkFromLivelocStartShowsTheShareLiveThenEndedInChromium() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.secretFile("link-secret", containing: ShareLinkEndToEndTests.secret + "\n")
        let (relay, port) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile, extra: ["--tiles", "none"])
        defer { relay.terminate(); relay.waitUntilExit() }
        let daemon = try await harness.launch(log: Self.drive, speed: 5, extra: [
            "--link.relay_url", "http://127.0.0.1:\(port)", "--link.secret_file", secretFile.path])
        let started = try await harness.liveloc(["start", "--duration", "15m"])
        let link = try #require(started.stderr.split(separator: "\n").first { $0.hasPrefix("link: ") }.map { String($0.dropFirst(6)) },
                                "\(started.stderr)")
        #expect(link.hasPrefix("http://127.0.0.1:\(port)/s/"))

        let live = try await SharePageInChromiumTests.open(link, until: "live", extra: ["--min-seq", "3"])
        #expect(live.state == "live" && Int(live.seq ?? "") ?? 0 >= 3, "\(live)")
        // (A replay's share runs on its fixes' clock: the countdown is read against that, not checked here.)
        #expect(live.position?.contains(",") == true && live.updated != "—", "\(live)")
        if SharePageInChromiumTests.leaflet {
            #expect(live.map == "grid" && (14...22).contains(live.markerSize ?? 0), "\(live)")
        }

        #expect(try await harness.liveloc(["stop"]).status == 0)
        try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        let ended = try await SharePageInChromiumTests.open(link, until: "ended")
        #expect(ended.state == "ended" && ended.status?.hasPrefix("Sharing ended at") == true, "\(ended)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}

