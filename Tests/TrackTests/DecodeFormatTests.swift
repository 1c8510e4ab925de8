import Foundation
import Testing
import TestSupport

/// `liveloc decode --format …` run as a process on the tunnel drive (Fixtures/fix-loss.nmea: 180
/// fixes, 90 s without a fix, 210 fixes).
@Suite struct DecodeFormatTests {
    let liveloc = Paths.executable("liveloc")
    let log = Paths.fixture("fix-loss.nmea").path

    func decode(_ arguments: [String]) async throws -> ProcessResult {
        let result = try await runProcess(liveloc, ["decode"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    @Test func gpxOfADriveThroughATunnelHasTwoSegmentsAndEveryFix() async throws {
        let fixes = try await decode([log]).stdoutLines.count
        let document = Array(try await decode([log, "--format", "gpx"]).stdout.utf8)
        #expect(try await xmllintComplaint(document) == nil)
        let summary = try await python(gpxSummaryScript, on: document, suffix: "gpx")
        let tracks = try #require(summary["tracks"] as? [[String: Any]])
        #expect(tracks[0]["name"] as? String == "fix-loss.nmea")
        let segments = try #require(tracks[0]["segments"] as? [[[String: Any]]])
        #expect(segments.map(\.count) == [180, 210])
        #expect(segments.map(\.count).reduce(0, +) == fixes)
        #expect(segments[0].last?["time"] as? String == "2026-03-14T10:02:59+00:00")
        #expect(segments[1].first?["time"] as? String == "2026-03-14T10:04:30+00:00")
    }

    @Test func geoJSONOfADriveThroughATunnelHasALineStringEachSideOfIt() async throws {
        let document = Array(try await decode([log, "--format", "geojson"]).stdout.utf8)
        let summary = try await python(geoJSONSummaryScript, on: document, suffix: "geojson")
        #expect(summary["valid"] as? Bool == true)
        let features = try #require(summary["features"] as? [[String: Any]])
        #expect(features.map { $0["type"] as? String } == ["LineString", "LineString"])
        let lines = features.compactMap { $0["coordinates"] as? [[Double]] }
        #expect(lines.map(\.count) == [180, 210])
        // Longitude first: Munich is at 11.6° E, 48.1° N.
        #expect(lines[0][0][0] > 11 && lines[0][0][0] < 12 && lines[0][0][1] > 48 && lines[0][0][1] < 49)
    }

    @Test func csvOfADriveThroughATunnelNumbersItsSegments() async throws {
        let document = Array(try await decode([log, "--format", "csv"]).stdout.utf8)
        let summary = try await python(csvSummaryScript, on: document, suffix: "csv")
        let rows = try #require(summary["rows"] as? [[String: String]])
        #expect(rows.count == 390)
        #expect(rows.filter { $0["segment"] == "1" }.count == 180)
        #expect(rows.filter { $0["segment"] == "2" }.count == 210)
    }

    @Test func aLongerGapJoinsTheSegmentsAndStandardInputHasNoName() async throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: log))
        let result = try await runProcess(liveloc, ["decode", "-", "--format", "gpx", "--gap", "120"], stdin: input)
        #expect(result.status == 0)
        let summary = try await python(gpxSummaryScript, on: Array(result.stdout.utf8), suffix: "gpx")
        let tracks = try #require(summary["tracks"] as? [[String: Any]])
        #expect(tracks[0]["name"] is NSNull)
        #expect((tracks[0]["segments"] as? [[Any]])?.map(\.count) == [390])
    }

    @Test func anUnknownFormatOrAGapWithoutATrackFormatIsAUsageError() async throws {
        for arguments in [["--format", "kml"], ["--gap", "10"], ["--format", "gpx", "--gap", "0"]] {
            let result = try await runProcess(liveloc, ["decode", log] + arguments)
            #expect(result.status == 2)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains(arguments.count == 2 && arguments[0] == "--format" ? "--format" : "--gap"), "\(result.stderr)")
        }
    }
}
