import Foundation
import LiveLocation
import Testing
import TestSupport

/// `journal.sync_delay`: an update may wait so that one disk sync carries several; a share's end
/// never waits, and nothing leaves out of order. The real livelocd, replaying the drive at 1 fix/s.
@Suite(.serialized) struct DaemonSyncDelayTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    /// A line of standard output and when the test first saw it.
    struct Arrival {
        var object: [String: Any]
        var at: ContinuousClock.Instant
        var seq: Int { object["seq"] as? Int ?? -1 }
        var isUpdate: Bool { object["event"] as? String == "updated" }
        /// The fix's time on the log's timeline (replayed at 1x: a constant offset from the wall clock).
        var fixedAt: Int64? {
            ((object["location"] as? [String: Any])?["lastUpdateAt"] as? String).flatMap(Timestamp.init(iso8601:))?.millisecondsSince1970
        }
    }

    /// How much longer the longest-waiting update took from its fix to standard output than the
    /// quickest one, in milliseconds.
    func waitSpread(_ arrivals: [Arrival]) -> Int64 {
        let origin = arrivals.first?.at ?? .now
        let delays = arrivals.filter(\.isUpdate).compactMap { arrival -> Int64? in
            guard let fixedAt = arrival.fixedAt else { return nil }
            let (seconds, attoseconds) = (arrival.at - origin).components
            return seconds * 1_000 + attoseconds / 1_000_000_000_000_000 - fixedAt
        }
        return (delays.max() ?? 0) - (delays.min() ?? 0)
    }

    /// The daemon's standard output from line `start` on, each line with when it was first seen
    /// (looked at every 20 ms), for `duration`.
    func arrivals(_ daemon: DaemonProcess, from start: Int, for duration: Duration) async throws -> [Arrival] {
        var arrivals: [Arrival] = []
        let end = ContinuousClock.now + duration
        for _ in 0..<Int(duration / .milliseconds(20)) + 1 where ContinuousClock.now < end {
            let lines = daemon.lines(.stdout)
            let now = ContinuousClock.now
            while start + arrivals.count < lines.count {
                arrivals.append(Arrival(object: jsonObject(lines[start + arrivals.count]) ?? [:], at: now))
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return arrivals
    }

    /// Updates seen within 150 ms of each other, in groups (at 1 fix/s, a group of two or more
    /// is updates that waited for one sync).
    func groups(_ arrivals: [Arrival]) -> [[Arrival]] {
        var groups: [[Arrival]] = []
        for arrival in arrivals where arrival.isUpdate {
            if let last = groups.last?.last, arrival.at - last.at < .milliseconds(150) {
                groups[groups.count - 1].append(arrival)
            } else {
                groups.append([arrival])
            }
        }
        return groups
    }

    @Test(arguments: [(delay: "3s", grouped: true), (delay: "off", grouped: false)])
    func updatesWaitForOneSyncAtMostTheDelayAndAShareEndsAtOnce(delay: String, grouped: Bool) async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 1, extra: ["--journal.sync_delay", delay])
        let start = try await harness.liveloc(["start", "--duration", "1h"])
        #expect(start.status == 0, "\(start.stderr)")
        let before = daemon.lines(.stdout).count
        let watched = try await arrivals(daemon, from: before, for: .seconds(10))
        let groups = groups(watched)
        let largest = groups.map(\.count).max() ?? 0
        let spread = waitSpread(watched)
        if grouped {
            #expect(largest >= 2, "updates at 1 fix/s with a 3 s sync delay arrived one by one: \(groups.map(\.count))")
            // They wait, and none more than the delay (plus the 20 ms look and the replay's jitter).
            #expect((1_500...3_400).contains(spread), "updates waited from 0 to \(spread) ms for their sync")
        } else {
            #expect(largest == 1, "without a sync delay two updates arrived together: \(groups.map(\.count))")
            #expect(spread < 500, "updates waited from 0 to \(spread) ms without a sync delay")
        }
        #expect(groups.count >= 2, "\(watched.count) lines in 10 s")

        // A stop is answered once its end is synced, and the end leaves with every update held before it.
        let stopAsked = ContinuousClock.now
        let stop = try await harness.liveloc(["stop"])
        #expect(stop.status == 0, "\(stop.stderr)")
        try await daemon.waitForLine(timeout: .seconds(5)) { $0.contains("\"ended\"") }
        #expect(ContinuousClock.now - stopAsked < .seconds(2), "the share's end waited \(ContinuousClock.now - stopAsked)")
        let seqs = daemon.lines(.stdout)[before...].compactMap { jsonObject($0)?["seq"] as? Int }
        let first = try #require(seqs.first)
        #expect(seqs == Array(first..<first + seqs.count), "seqs out of order or missing: \(seqs)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func aSyncDelayAboveAMinuteStopsStartupNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"),
                                          harness.arguments(log: Self.drive, extra: ["--journal.sync_delay", "2m"]))
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("journal.sync_delay"), "\(result.stderr)")
    }
}
