import Foundation
import Testing
import TestSupport

/// `liveloc decode` run as a process.
@Suite struct DecodeCommand {
    let liveloc = Paths.executable("liveloc")

    @Test func printsOneTPVLinePerFixFromAFile() async throws {
        let directory = try Paths.temporaryDirectory("nmea-decode")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("drive.nmea")
        try Data((epoch("101010") + epoch("101011") + "garbage\n").utf8).write(to: log)
        let result = try await runProcess(liveloc, ["decode", log.path])
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(result.stdoutLines[0].utf8)) as? [String: Any]
        #expect(first?["class"] as? String == "TPV")
        #expect(first?["time"] as? String == "2026-12-02T10:10:10.000Z")
        #expect(first?["mode"] as? Int == 3)
        #expect(result.stderr.isEmpty)
    }

    @Test func readsStandardInputAndPrintsStatisticsWithStats() async throws {
        let input = Data((epoch("101010") + epoch("101011") + "\u{01}\u{02}junk\n").utf8)
        let result = try await runProcess(liveloc, ["decode", "-", "--stats"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("fixes 2") == true)
        #expect(lines.first?.contains("malformed 1") == true)
    }

    @Test func missingFileIsAOneLineErrorWithStatus2() async throws {
        let result = try await runProcess(liveloc, ["decode", "/nonexistent/drive.nmea"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("/nonexistent/drive.nmea"))
    }

    @Test func directoryIsUnreadableWithStatus2() async throws {
        let result = try await runProcess(liveloc, ["decode", "/tmp"])
        #expect(result.status == 2)
    }

    @Test func helpDescribesUsage() async throws {
        let result = try await runProcess(liveloc, ["decode", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("usage: liveloc decode [FILE|-] [--format json|gpx|geojson|csv]"))
    }
}
