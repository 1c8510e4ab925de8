import Foundation
import Testing
import TestSupport

/// `liveloc extend` through the real livelocd and liveloc, on the replayed drive (its timeline is
/// the shares' clock, replayed faster than real time).
@Suite(.serialized) struct DaemonExtendTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    /// An event's `location` of share `id`, nil for another share's or an `ended`.
    private static func location(_ line: String, of id: String) -> [String: Any]? {
        guard let object = jsonObject(line), object["shareId"] as? String == id else { return nil }
        return object["location"] as? [String: Any]
    }

    private static func date(_ text: Any?) -> Date? {
        guard let text = text as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    @Test func aFifteenMinuteShareExtendedAtThirteenMinutesEndsFifteenMinutesLaterWithItsFinalUpdateAndEnded() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 60)
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await daemon.waitForLine { Self.location($0, of: id) != nil }
        let startedAt = try #require(Self.date(Self.location(first, of: id)?["startedAt"]))
        let expiresAt = try #require(Self.date(Self.location(first, of: id)?["expiresAt"]))
        #expect(expiresAt.timeIntervalSince(startedAt) == 900)
        // 13 minutes into the share on its clock (13 s at 60 times real time): the extension comes
        // in its last two minutes.
        try await daemon.waitForLine(timeout: .seconds(60)) {
            (Self.date(Self.location($0, of: id)?["lastUpdateAt"])?.timeIntervalSince(startedAt) ?? 0) >= 780
        }
        let extend = try await harness.liveloc(["extend", "15m"])
        #expect(extend.status == 0, "\(extend.stderr)")
        let newEnd = startedAt.addingTimeInterval(1800)
        #expect(extend.stdout.hasPrefix("\(id) until "), "\(extend.stdout)")
        #expect(extend.stdout.split(separator: "\n").count == 1)

        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let share = try #require(status["share"] as? [String: Any])
        #expect(Self.date(share["expiresAt"]) == newEnd)
        #expect((share["secondsLeft"] as? Double ?? 0) > 900)
        let text = try await harness.liveloc(["status"])
        #expect(text.stdout.contains("min left"), "\(text.stdout)")

        let ended = try await daemon.waitForLine(timeout: .seconds(90)) { jsonObject($0)?["event"] as? String == "ended" }
        #expect(jsonObject(ended)?["shareId"] as? String == id)
        #expect(jsonObject(ended)?["reason"] as? String == "expired")
        let events = daemon.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
        // One share: seq 1, 2, 3, … without a gap; startedAt never moves.
        #expect(events.compactMap { $0["seq"] as? Int } == Array(1...events.count))
        let locations = events.compactMap { $0["location"] as? [String: Any] }
        #expect(locations.allSatisfy { Self.date($0["startedAt"]) == startedAt })
        // Every update after the extension's carries the new end; the final one ends there.
        let firstNew = try #require(locations.firstIndex { Self.date($0["expiresAt"]) == newEnd })
        #expect(locations[..<firstNew].allSatisfy { Self.date($0["expiresAt"]) == expiresAt })
        #expect(locations[firstNew...].allSatisfy { Self.date($0["expiresAt"]) == newEnd })
        let final = try #require(locations.last)
        #expect(final["isActive"] as? Bool == false)
        #expect(Self.date(final["expiresAt"]) == newEnd)
        #expect(locations.dropLast().contains { (Self.date($0["lastUpdateAt"])?.timeIntervalSince(startedAt) ?? 0) > 900 },
                "the share went on past its first end")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func anExtensionPastEightHoursFromNowIsCappedThere() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { Self.location($0, of: id) != nil }
        let extend = try await harness.liveloc(["extend", "1h"])
        #expect(extend.status == 0, "\(extend.stderr)")
        #expect(extend.stdout.contains("capped at 8h from now"), "\(extend.stdout)")
        let raw = try await harness.exchange(Array(#"{"v":1,"op":"extend","duration":"8h"}"#.utf8) + [10])
        let reply = try #require(jsonObject(raw.first ?? ""))
        #expect(reply["ok"] as? Bool == true)
        #expect((reply["extended"] as? [String: Any])?["capped"] as? Bool == true)
        let share = try #require(reply["share"] as? [String: Any])
        let secondsLeft = try #require(share["secondsLeft"] as? Double)
        #expect(secondsLeft <= 8 * 3600 && secondsLeft > 8 * 3600 - 60, "\(secondsLeft)")
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        #expect(((status["share"] as? [String: Any])?["secondsLeft"] as? Double ?? 0) <= 8 * 3600)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func anExtensionWithNoActiveShareOrAfterTheFinalUpdateIsRefusedInOneLine() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let none = try await harness.liveloc(["extend", "15m"])
        #expect(none.status == 1)
        #expect(none.stderr.split(separator: "\n").count == 1, "\(none.stderr)")
        #expect(none.stderr.contains("no active share"), "\(none.stderr)")

        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { Self.location($0, of: id) != nil }
        _ = try await harness.liveloc(["stop"])
        try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        let afterFinal = try await harness.liveloc(["extend", "1h"])
        #expect(afterFinal.status == 1)
        #expect(afterFinal.stderr.split(separator: "\n").count == 1, "\(afterFinal.stderr)")
        let raw = try await harness.exchange(Array(#"{"v":1,"op":"extend","duration":"1h"}"#.utf8) + [10])
        #expect((jsonObject(raw.first ?? "")?["error"] as? [String: Any])?["code"] as? String == "no-share", "\(raw)")
        let usage = try await harness.liveloc(["extend", "30m"])
        #expect(usage.status == 2)
        // Nothing of the share came after its end.
        let events = daemon.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
        #expect(events.last?["event"] as? String == "ended")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// The final update is out of the engine but not delivered (a webhook that cannot be reached
    /// holds it): an extension then is refused, naming the share that ended, and adds no event.
    @Test func anExtensionWhileTheFinalUpdateIsStillBeingDeliveredIsRefusedNamingTheEndedShare() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        let daemon = try await harness.launch(log: Self.drive, extra: [
            "--webhook.url", "http://127.0.0.1:1/hook", "--webhook.secret_file", secretFile.path])
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { Self.location($0, of: id) != nil }
        _ = try await harness.liveloc(["stop"])
        try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        let before = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let webhook = try #require((before["sinks"] as? [[String: Any]])?.first { $0["name"] as? String == "webhook" })
        #expect(((webhook["delivery"] as? [String: Any])?["pending"] as? Int ?? 0) >= 2, "\(webhook)")

        let refused = try await harness.liveloc(["extend", "15m"])
        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("no active share") && refused.stderr.contains(id) && refused.stderr.contains("stopped"),
                "\(refused.stderr)")
        let events = daemon.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
        #expect(events.last?["event"] as? String == "ended")
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    @Test func aRestartBetweenTheExtensionAndTheNewEndKeepsTheNewEnd() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await daemon.waitForLine { Self.location($0, of: id) != nil }
        let startedAt = try #require(Self.date(Self.location(first, of: id)?["startedAt"]))
        let extend = try await harness.liveloc(["extend", "1h"])
        #expect(extend.status == 0, "\(extend.stderr)")
        let newEnd = startedAt.addingTimeInterval(900 + 3600)
        // The reply came once the new end was on disk: a SIGKILL now (no shutdown to write it) keeps it.
        await daemon.kill9()
        let lastSeq = daemon.lines(.stdout).compactMap { jsonObject($0)?["seq"] as? Int }.max() ?? 0

        let restarted = try await harness.launch(log: Self.drive)
        #expect(restarted.lines(.stderr).contains { $0.contains("resuming share \(id)") })
        let next = try await restarted.waitForLine { Self.location($0, of: id) != nil }
        #expect(Self.date(Self.location(next, of: id)?["expiresAt"]) == newEnd)
        #expect(Self.date(Self.location(next, of: id)?["startedAt"]) == startedAt)
        #expect((jsonObject(next)?["seq"] as? Int ?? 0) > lastSeq)
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let share = try #require(status["share"] as? [String: Any])
        #expect(share["id"] as? String == id)
        #expect(Self.date(share["expiresAt"]) == newEnd)
        restarted.send(SIGTERM)
        #expect(await restarted.waitForExit() == 0)
    }

    /// Telegram's live location is extended as the share is: the next edit carries the longer
    /// `live_period` (Bot API 7.3) that the contract server checks extends the current one.
    @Test func telegramsNextEditCarriesTheLongerLivePeriod() async throws {
        let harness = try DaemonHarness()
        let token = "123456789:AAH-extend_Loopback-token"
        let api = try await BotAPIServer.start(token: token, records: harness.directory.appendingPathComponent("calls.jsonl"))
        defer { api.stop() }
        let tokenFile = try harness.secretFile("telegram-token", containing: "\(token)\n").path
        let telegram = ["--telegram.chat", "42", "--telegram.token_file", tokenFile, "--telegram.api_url", api.apiURL]
        let daemon = try await harness.launch(log: Self.drive, speed: 10, extra: telegram)
        _ = try await harness.liveloc(["start", "--duration", "15m"])
        await api.waitForCalls { $0.contains { $0.method == "editMessageLiveLocation" && $0.status == 200 } }
        let extend = try await harness.liveloc(["extend", "1h"])
        #expect(extend.status == 0, "\(extend.stderr)")
        let extended = await api.waitForCalls { $0.contains { $0.method == "editMessageLiveLocation" && $0.params["live_period"] != nil } }
        // Extended again, past 8 h from the start: the share's length in seconds.
        _ = try await harness.liveloc(["extend", "8h"])
        let again = await api.waitForCalls { $0.filter { $0.method == "editMessageLiveLocation" && $0.params["live_period"] != nil }.count >= 2 }
        _ = try await harness.liveloc(["stop"])
        let calls = await api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        let send = try #require(extended.first { $0.method == "sendLocation" })
        #expect(send.params["live_period"] == "900")
        let periods = again.filter { $0.method == "editMessageLiveLocation" && $0.params["live_period"] != nil }
        #expect(periods.map(\.status) == [200, 200], "\(periods)")
        #expect(periods.first?.params["live_period"] == "28800")
        let longest = try #require(periods.last?.params["live_period"].flatMap(Int.init))
        #expect(longest > 28800 && longest <= 16 * 3600, "\(longest)")
        #expect(periods.allSatisfy { $0.messageID == send.messageID })
        #expect(calls.last { $0.method == "stopMessageLiveLocation" }?.status == 200)
    }
}
