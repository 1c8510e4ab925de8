import Foundation
import Testing
import TestSupport

/// `liveloc track` against the real daemon: the journal keeps every accepted fix of a share.
@Suite(.serialized) struct TrackCommandTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test func theTrackOfAShareIsEveryFixItAcceptedTruePositionsEvenWithPrivacy() async throws {
        let truth = try await decodedPositions(of: Self.drive)
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 20, loop: false,
                                              extra: ["--privacy.precision", "500", "--control.status_public", "true"])
        defer { daemon.send(SIGKILL) }
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine(timeout: .seconds(60)) { jsonObject($0)?["shareId"] as? String == id && (jsonObject($0)?["seq"] as? Int ?? 0) >= 40 }
        #expect(try await harness.liveloc(["stop"]).status == 0)
        try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        let updates = daemon.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
            .compactMap { $0["location"] as? [String: Any] }.filter { $0["isActive"] as? Bool == true }

        let gpx = try await harness.liveloc(["track", "--last", "--format", "gpx"])
        #expect(gpx.status == 0, "\(gpx.stderr)")
        let document = Array(gpx.stdout.utf8)
        #expect(try await xmllintComplaint(document) == nil)
        let summary = try await python(gpxSummaryScript, on: document, suffix: "gpx")
        let tracks = try #require(summary["tracks"] as? [[String: Any]])
        #expect(tracks.first?["name"] as? String == "livelocd share \(id)")
        let points = try #require((tracks.first?["segments"] as? [[[String: Any]]])?.flatMap { $0 })
        // Without a throttle every accepted fix was an update; the track has them all, unblurred.
        #expect(points.count == updates.count && points.count >= 40, "\(points.count) points, \(updates.count) updates")
        for point in points {
            let time = try #require(point["time"] as? String)
            let key = String(time.prefix(19)) + ".000Z"
            let real = try #require(truth[key], "\(time)")
            #expect(point["lat"] as? Double == real.latitude && point["lon"] as? Double == real.longitude)
        }

        let csv = try await harness.liveloc(["track", id, "--format", "csv"])
        #expect(csv.status == 0)
        #expect(csv.stdoutLines.count == points.count + 1)
        let geojson = try await harness.liveloc(["track", id, "--format", "geojson"])
        let features = try await python(geoJSONSummaryScript, on: Array(geojson.stdout.utf8), suffix: "geojson")
        #expect(features["valid"] as? Bool == true)

        let unknown = try await harness.liveloc(["track", "2e8e5c1a-9b5a-4e3c-9f2a-4b7d0e9c8f63"])
        #expect(unknown.status == 1 && unknown.stdout.isEmpty)
        #expect(unknown.stderr.contains("no track of share 2e8e5c1a-9b5a-4e3c-9f2a-4b7d0e9c8f63"), "\(unknown.stderr)")
        // Tracks are true positions: only the control group reads them, not a public status's audience.
        let nobody = try await harness.liveloc(["track"], asNobody: true)
        #expect(nobody.status == 1 && nobody.stderr.contains("forbidden"), "\(nobody.stderr)")
    }

    @Test func withRetentionOffNoTrackIsKept() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 20, extra: ["--track.retention", "off"])
        defer { daemon.send(SIGKILL) }
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 3 }
        let track = try await harness.liveloc(["track", "--format", "csv"])
        #expect(track.status == 1 && track.stdout.isEmpty)
        #expect(track.stderr.contains("keeps no tracks (track.retention = off)"), "\(track.stderr)")
    }

    @Test func aBadRetentionIsAConfigurationErrorNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"), ["--config", harness.configPath(), "--track.retention", "forever"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("track.retention") && result.stderr.contains("'forever'"), "\(result.stderr)")
    }
}
