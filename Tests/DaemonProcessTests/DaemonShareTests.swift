import Foundation
import Testing
import TestSupport

/// The real livelocd and liveloc, as processes, on the replayed drive.
@Suite(.serialized) struct DaemonShareTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test func startPrintsTheShareIDAndStatusShowsTheShare() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let start = try await harness.liveloc(["start", "--duration", "15m"])
        #expect(start.status == 0, "\(start.stderr)")
        let id = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 36)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 2 }

        let status = try await harness.liveloc(["status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let object = try #require(jsonObject(status.stdout))
        let share = try #require(object["share"] as? [String: Any])
        #expect(share["id"] as? String == id)
        #expect((share["updatesSent"] as? Int ?? 0) >= 2)
        #expect(share["lastPosition"] is [String: Any])
        #expect((share["secondsLeft"] as? Double ?? 0) > 0)
        let source = try #require(object["source"] as? [String: Any])
        #expect(source["state"] as? String == "connected")
        #expect(source["fix"] as? Bool == true)
        let sinks = try #require(object["sinks"] as? [[String: Any]])
        #expect(sinks.first?["name"] as? String == "stdout")

        let text = try await harness.liveloc(["status"])
        #expect(text.stdout.contains("  share     \(id.prefix(8)) · started"), "a random id by its first 8 characters: \(text.stdout)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func stopEndsTheShareWithReasonStopped() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let id = try await harness.liveloc(["start", "--duration", "1h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id }
        let stop = try await harness.liveloc(["stop"])
        #expect(stop.status == 0)
        #expect(stop.stdout == "stopped \(id)\n")
        let ended = try await daemon.waitForLine { $0.contains("\"ended\"") }
        #expect(jsonObject(ended)?["reason"] as? String == "stopped")
        #expect(try await harness.liveloc(["stop"]).stdout == "no active share\n")
        // The end is on disk once `stop` has answered: a SIGKILL now (no shutdown to write it) leaves
        // a journal without an active share. (The journal is read once the daemon is gone: it holds
        // the journal's lock while it runs.)
        await daemon.kill9()
        #expect(try await harness.persistedShareID() == nil)
    }

    @Test func startingASecondShareSupersedesTheFirst() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let first = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == first }
        let second = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first != second)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == second }
        let events = daemon.lines(.stdout).compactMap(jsonObject)
        let endedIndex = try #require(events.firstIndex { $0["shareId"] as? String == first && $0["event"] as? String == "ended" })
        let firstOfSecond = try #require(events.firstIndex { $0["shareId"] as? String == second })
        #expect(events[endedIndex]["reason"] as? String == "superseded")
        #expect(endedIndex < firstOfSecond)
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        #expect((status["share"] as? [String: Any])?["id"] as? String == second)
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    @Test func shareSurvivesSIGKILLWithTheSameIDAndItsSeqContinues() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 5 }
        await daemon.kill9()
        let lastSeq = daemon.lines(.stdout).compactMap { jsonObject($0)?["seq"] as? Int }.max() ?? 0
        let firstExpiry = jsonObject(daemon.lines(.stdout).last!).flatMap { ($0["location"] as? [String: Any])?["expiresAt"] as? String }

        let restarted = try await harness.launch(log: Self.drive)
        #expect(restarted.lines(.stderr).contains { $0.contains("resuming share \(id)") })
        let next = try await restarted.waitForLine { jsonObject($0)?["shareId"] as? String == id }
        let seq = try #require(jsonObject(next)?["seq"] as? Int)
        // Each event is journaled before it is printed: a seq printed before the kill is never
        // printed again (it could carry another fix), and stdout, not durable, may miss at most the
        // batch committed just before the kill.
        #expect(seq > lastSeq, "resumed at \(seq) after \(lastSeq)")
        #expect((jsonObject(next)?["location"] as? [String: Any])?["expiresAt"] as? String == firstExpiry)
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        #expect((status["share"] as? [String: Any])?["id"] as? String == id)
        restarted.send(SIGTERM)
        #expect(await restarted.waitForExit() == 0)
        #expect(try await harness.persistedShareID() == id, "\(restarted.lines(.stderr))")
    }

    @Test func shareThatExpiredWhileDownEndsWithItsFinalUpdateAtTheNextStart() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let update = try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id }
        // Once the second update is out, the first one's delivery (with its position) is on disk.
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 2 }
        let expiresAt = try #require((jsonObject(update)?["location"] as? [String: Any])?["expiresAt"] as? String)
        await daemon.kill9()

        // The next run's timeline starts an hour after the drive's: the share ran out meanwhile.
        let later = try harness.syntheticLog(named: "later.nmea", start: Date(timeIntervalSince1970: 1_773_478_800), seconds: 600)
        let restarted = try await harness.launch(log: later)
        let final = try await restarted.waitForLine { jsonObject($0)?["event"] as? String == "updated" }
        let location = try #require(jsonObject(final)?["location"] as? [String: Any])
        #expect(jsonObject(final)?["shareId"] as? String == id)
        #expect(location["isActive"] as? Bool == false)
        #expect(location["expiresAt"] as? String == expiresAt)
        let ended = try await restarted.waitForLine { $0.contains("\"ended\"") }
        #expect(jsonObject(ended)?["reason"] as? String == "expired")
        #expect(jsonObject(ended)?["shareId"] as? String == id)
        restarted.send(SIGTERM)
        _ = await restarted.waitForExit()
        #expect(try await harness.persistedShareID() == nil)
    }

    @Test func cliSaysInOneLineWhenTheDaemonIsNotRunning() async throws {
        let harness = try DaemonHarness()
        let result = try await harness.liveloc(["status"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("liveloc: status: livelocd is not running"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aShareStartedWithTheCallersIDCarriesItAndABadIDIsABadRequest() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let start = try await harness.liveloc(["start", "--duration", "15m", "--id", "chat:42.msg_7-a"])
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "chat:42.msg_7-a")
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == "chat:42.msg_7-a" && jsonObject($0)?["seq"] as? Int == 2 }
        let bad = try await harness.liveloc(["start", "--duration", "15m", "--id", "has space"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("A-Za-z0-9._:-"), "\(bad.stderr)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// Issue 29, item 1: `liveloc start --id trip-42` was accepted again while that share was active,
    /// after it ended, and after a restart: `evt_trip-42_1…` then named two or three contents, and a
    /// receiver deduplicating on webhook-id dropped every later share. An id used once is refused
    /// in one line (exit 1), durably; another id still starts.
    @Test func aCallersShareIDIsRefusedOnceUsedInTheSameRunAndAfterARestart() async throws {
        let harness = try DaemonHarness()
        let first = try await harness.launch(log: Self.drive)
        let started = try await harness.liveloc(["start", "--duration", "15m", "--id", "trip-42"])
        #expect(started.status == 0, "\(started.stderr)")
        try await first.waitForLine { jsonObject($0)?["shareId"] as? String == "trip-42" && jsonObject($0)?["seq"] as? Int == 2 }
        let whileActive = try await harness.liveloc(["start", "--duration", "1h", "--id", "trip-42"])
        _ = try await harness.liveloc(["stop"])
        try await first.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        let afterItEnded = try await harness.liveloc(["start", "--duration", "15m", "--id", "trip-42"])
        first.send(SIGTERM)
        #expect(await first.waitForExit() == 0)

        let second = try await harness.launch(log: Self.drive)
        let afterARestart = try await harness.liveloc(["start", "--duration", "15m", "--id", "trip-42"])
        // The control socket's own answer: one line, its code `id-used`.
        let raw = try await harness.exchange(Array("{\"v\":1,\"op\":\"start\",\"duration\":\"8h\",\"id\":\"trip-42\"}\n".utf8))
        let another = try await harness.liveloc(["start", "--duration", "15m", "--id", "trip-43"])
        try await second.waitForLine { jsonObject($0)?["shareId"] as? String == "trip-43" && jsonObject($0)?["seq"] as? Int == 1 }
        second.send(SIGTERM)
        #expect(await second.waitForExit() == 0)

        for (when, refused) in [("while active", whileActive), ("after it ended", afterItEnded), ("after a restart", afterARestart)] {
            #expect(refused.status == 1, "\(when): \(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(when): \(refused.stderr)")
            #expect(refused.stderr.contains("trip-42") && refused.stderr.contains("used before"), "\(when): \(refused.stderr)")
        }
        #expect(raw.count == 1, "\(raw)")
        #expect(jsonObject(raw.first ?? "")?["ok"] as? Bool == false)
        #expect((jsonObject(raw.first ?? "")?["error"] as? [String: Any])?["code"] as? String == "id-used", "\(raw)")
        #expect(another.status == 0, "\(another.stderr)")
        // Each event id names one content: no seq of trip-42 twice, in both runs' output.
        let seqs = (first.lines(.stdout) + second.lines(.stdout)).compactMap(jsonObject)
            .filter { $0["shareId"] as? String == "trip-42" }.compactMap { $0["seq"] as? Int }
        #expect(!seqs.isEmpty)
        #expect(seqs == Array(1...seqs.count), "\(seqs)")
    }
}
