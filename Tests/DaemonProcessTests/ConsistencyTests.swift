import Daemon
import Foundation
import SystemIO
import Testing
import TestSupport

/// The same thing said one way everywhere (issue 20): help texts, share ids, durations, exit
/// statuses of a bad configuration, and a share that can no longer get a position.
@Suite struct ConsistencyTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test func trackHelpListsTheSocketAndTimeoutOptions() async throws {
        let help = try await runProcess(Paths.executable("liveloc"), ["track", "--help"])
        #expect(help.status == 0)
        #expect(!help.stdout.contains("\\("), "an unexpanded interpolation: \(help.stdout)")
        #expect(help.stdout.contains("--socket PATH") && help.stdout.contains("--timeout D"))
    }

    @Test func aShareStartedWithTheCallersIDIsTrackedByIt() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 20)
        let started = try await harness.liveloc(["start", "--duration", "15m", "--id", "van7-trip.2026"])
        #expect(started.stdout == "van7-trip.2026\n", "\(started.stderr)")
        var rows: [String] = []
        for _ in 0..<50 where rows.count < 3 {
            try await Task.sleep(for: .milliseconds(100))
            let track = try await harness.liveloc(["track", "van7-trip.2026", "--format", "csv"])
            #expect(track.status == 0, "\(track.stderr)")
            rows = Array(track.stdoutLines.dropFirst())
        }
        #expect(rows.count >= 3, "the track of van7-trip.2026 has \(rows.count) fixes")
        let bad = try await harness.liveloc(["track", "van7 trip"])
        #expect(bad.status == 2)
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    /// One parser: what the configuration and the options take.
    @Test(arguments: [("5", 5_000), ("5s", 5_000), ("500ms", 500), ("1.5m", 90_000), ("15m", 900_000), ("1h", 3_600_000),
                      ("7d", 604_800_000), ("0", 0), (".5s", 500)])
    func durationsAreANumberWithAUnitOrBareSeconds(text: String, milliseconds: Int64) {
        #expect(Duration(durationText: text) == .milliseconds(milliseconds))
    }

    @Test(arguments: ["", "s", "-5s", "5 s", "5x", "1e400s", "inf", "nan", "5sec", "+5s", "1e9d"])
    func anythingElseIsNoDuration(text: String) {
        #expect(Duration(durationText: text) == nil)
    }

    @Test func theConfigurationTakesTheSameDurationsAsTheOptions() throws {
        var configuration = DaemonConfiguration(environment: [:])
        for (text, expected) in [("5", Duration.seconds(5)), ("5s", .seconds(5)), ("500ms", .milliseconds(500)), ("1m", .seconds(60))] {
            try configuration.set("throttle.min_interval", to: text)
            #expect(configuration.throttle.minInterval == expected)
        }
        try configuration.set("throttle.min_interval", to: "off")
        #expect(configuration.throttle.minInterval == nil)
        #expect(throws: ConfigurationError.self) { try configuration.set("throttle.min_interval", to: "5 s") }
    }

    /// `liveloc share --min-interval` takes `5s` and `5` alike, and throttles to it: consecutive
    /// updates of the replayed drive are at least 5 s apart on the log's timeline.
    @Test(arguments: ["5s", "5"])
    func shareTakesTheMinimumIntervalWithAUnit(interval: String) async throws {
        let result = try await runProcess(Paths.executable("liveloc"),
                                          ["share", "--duration", "15m", "--replay", Self.drive, "--speed", "0", "--min-interval", interval],
                                          timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        let times = result.stdoutLines.compactMap { line -> String? in
            guard let object = jsonObject(line), object["event"] as? String == "updated",
                  let location = object["location"] as? [String: Any], location["isActive"] as? Bool == true else { return nil }
            return location["lastUpdateAt"] as? String
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let dates = times.compactMap(formatter.date(from:))
        #expect(dates.count > 10)
        let gaps = zip(dates.dropFirst(), dates).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { $0 >= 5 }, "gaps under 5 s: \(gaps.filter { $0 < 5 })")
    }

    @Test func aMissingReplayFileIsABadConfigurationForBoth() async throws {
        let harness = try DaemonHarness()
        let daemon = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: "/nonexistent/drive.nmea"))
        #expect(daemon.status == 2)
        #expect(daemon.stderr.split(separator: "\n").count == 1)
        #expect(daemon.stderr.contains("replay.file") && daemon.stderr.contains("/nonexistent/drive.nmea"))
        let share = try await runProcess(Paths.executable("liveloc"), ["share", "--duration", "15m", "--replay", "/nonexistent/drive.nmea"])
        #expect(share.status == 2)
        #expect(share.stderr.split(separator: "\n").count == 1)
    }

    /// A replay without loop ends; a share started after that is refused in one line instead of
    /// waiting for a position forever.
    @Test func aShareOnASourceThatHasEndedIsRefused() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 0, loop: false)
        try await daemon.waitForLine(.stderr) { $0.contains("source ended") }
        let started = try await harness.liveloc(["start", "--duration", "15m"])
        #expect(started.status == 1)
        #expect(started.stderr.contains("the source has ended"), "\(started.stderr)")
        let status = try await harness.liveloc(["status"])
        #expect(!status.stdout.contains("waiting for a position"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
