import Foundation
import Testing
import TestSupport

/// livelocd with its webhook sink: a real receiver on loopback that checks every signature itself.
@Suite struct DaemonWebhookTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test func eventsQueuedWhileTheReceiverIsDownSurviveASIGKILLAndArriveInOrderExactlyOnce() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        let port = try GPSFake.freeLoopbackPort()  // nothing listens there yet: the receiver is down
        let webhook = ["--webhook.url", "http://127.0.0.1:\(port)/hook", "--webhook.secret_file", secretFile.path]

        let first = try await harness.launch(log: Self.drive, extra: webhook)
        let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await first.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 10 }
        await first.kill9()
        let printedBeforeKill = first.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
        let lastSeqBeforeKill = printedBeforeKill.compactMap { $0["seq"] as? Int }.max() ?? 0

        let receiver = try await WebhookReceiver.start(secretFile: secretFile,
                                                       records: harness.directory.appendingPathComponent("records.jsonl"),
                                                       port: Int(port))
        defer { receiver.stop() }
        let second = try await harness.launch(log: Self.drive, extra: webhook)
        try await second.waitForLine { jsonObject($0)?["shareId"] as? String == id && (jsonObject($0)?["seq"] as? Int ?? 0) >= lastSeqBeforeKill + 3 }
        _ = try await harness.liveloc(["stop"])
        let ended = try await second.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        let endedSeq = try #require(jsonObject(ended)?["seq"] as? Int)
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let records = await receiver.waitForRecords(timeout: .seconds(30)) { records in
            records.contains { $0.acknowledged && $0.id == "evt_\(id)_\(endedSeq)" }
        }
        second.send(SIGTERM)
        _ = await second.waitForExit()

        #expect(records.allSatisfy { $0.signatureValid })
        let delivered = receiver.deliveries()
        #expect(delivered.map(\.id) == (1...endedSeq).map { "evt_\(id)_\($0)" })
        // What the first run emitted (and recorded as delivered) reached the receiver unchanged.
        let bodies = Dictionary(delivered.map { ($0.id, $0.body) }, uniquingKeysWith: { first, _ in first })
        for event in printedBeforeKill where (event["seq"] as? Int ?? 0) < lastSeqBeforeKill {
            let seq = event["seq"] as? Int ?? 0
            let body = try #require(bodies["evt_\(id)_\(seq)"])
            #expect(jsonObject(body)?["location"] as? NSDictionary == event["location"] as? NSDictionary)
        }
        let sinks = status["sinks"] as? [[String: Any]] ?? []
        #expect(sinks.contains { $0["name"] as? String == "webhook" })
    }

    /// issue 23: a receiver answering 400 to every event gave one log line per event (2,501 lines in
    /// 5 s), past journald's limit. Refusals are rate-limited as the control socket's are: one
    /// line, then a count at the end of the window; every refusal still counted in status.
    @Test func aReceiverRefusingEveryEventGivesOneLogLineNotOnePerEvent() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: harness.directory.appendingPathComponent("records.jsonl"),
                                                       fallback: "400")
        defer { receiver.stop() }
        let daemon = try await harness.launch(log: Self.drive, speed: 20, extra: [
            "--webhook.url", receiver.url, "--webhook.secret_file", secretFile.path])
        _ = try await harness.liveloc(["start", "--duration", "8h"])
        _ = await receiver.waitForRecords(timeout: .seconds(20)) { $0.count >= 40 }
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        let refused = receiver.records().filter { $0.response == "400" }.count
        let sinks = (status["status"] as? [String: Any] ?? status)["sinks"] as? [[String: Any]] ?? []
        let delivery = try #require(sinks.first { $0["name"] as? String == "webhook" }?["delivery"] as? [String: Any])
        let lines = daemon.lines(.stderr).filter { $0.contains("refused") }
        #expect(refused >= 40, "the receiver refused them all")
        #expect((delivery["dropped"] as? Int ?? 0) >= 40, "each refusal still counted: \(delivery)")
        #expect(delivery["state"] as? String == "refusing", "not 'retrying' nor 'active' while events are dropped: \(delivery)")
        #expect(lines.count == 1, "\(lines.count) lines for \(refused) refusals: \(lines.prefix(3))")
        #expect(lines.first?.contains("refused (HTTP 400") == true, "\(lines)")
    }

    /// Issue 24, the daemon's side: the webhook's URL changes in the configuration while events wait
    /// for the old one. Nothing queued for the old URL goes to the new one; `status` names what
    /// waits; the share that was open goes on to no receiver it did not start with.
    @Test func aWebhookMovedToANewURLGetsNothingQueuedForTheOldOne() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        let oldURL = "http://127.0.0.1:\(try GPSFake.freeLoopbackPort())/old"  // down throughout
        let first = try await harness.launch(log: Self.drive, extra: ["--webhook.url", oldURL, "--webhook.secret_file", secretFile.path])
        let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await first.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 5 }
        _ = try await harness.liveloc(["stop"])
        try await first.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        first.send(SIGTERM)
        _ = await first.waitForExit()

        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: harness.directory.appendingPathComponent("new.jsonl"))
        defer { receiver.stop() }
        let second = try await harness.launch(log: Self.drive, extra: ["--webhook.url", receiver.url, "--webhook.secret_file", secretFile.path])
        let newID = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await second.waitForLine { jsonObject($0)?["shareId"] as? String == newID && jsonObject($0)?["seq"] as? Int == 3 }
        _ = await receiver.waitForRecords { $0.filter(\.acknowledged).count >= 3 }
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let text = try await harness.liveloc(["status"]).stdout
        second.send(SIGTERM)
        _ = await second.waitForExit()

        #expect(!receiver.records().isEmpty)
        #expect(receiver.records().allSatisfy { $0.id.hasPrefix("evt_\(newID)_") }, "\(receiver.records().map(\.id).prefix(5))")
        let leftovers = status["leftovers"] as? [String] ?? []
        #expect(leftovers.count == 1)
        #expect(leftovers.first?.hasSuffix("event(s) for webhook \(oldURL) wait in the journal") == true, "\(leftovers)")
        #expect(text.contains("leftovers"), "\(text)")
        #expect(second.lines(.stderr).contains { $0.contains("for webhook \(oldURL) wait in the journal") })
    }

    /// Issue 29, item 9: a webhook URL that differs only in its user name was the same queue: alice's
    /// events queued while her receiver was down went out with bob's Basic authorization. The user
    /// name is part of the receiver's identity (the password is not): bob gets none of them, and
    /// `status` names alice's as leftovers, without any password.
    @Test func aWebhookURLThatDiffersOnlyInItsUserGetsNothingQueuedForTheOtherUser() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        let port = try GPSFake.freeLoopbackPort()  // nothing listens during the first run
        let alice = "http://alice:alice-pw@127.0.0.1:\(port)/hook", bob = "http://bob:bob-pw@127.0.0.1:\(port)/hook"
        let first = try await harness.launch(log: Self.drive, extra: ["--webhook.url", alice, "--webhook.secret_file", secretFile.path])
        let aliceShare = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await first.waitForLine { jsonObject($0)?["shareId"] as? String == aliceShare && jsonObject($0)?["seq"] as? Int == 5 }
        _ = try await harness.liveloc(["stop"])
        try await first.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        first.send(SIGTERM)
        _ = await first.waitForExit()

        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: harness.directory.appendingPathComponent("records.jsonl"),
                                                       port: Int(port))
        defer { receiver.stop() }
        let second = try await harness.launch(log: Self.drive, extra: ["--webhook.url", bob, "--webhook.secret_file", secretFile.path])
        let bobShare = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await second.waitForLine { jsonObject($0)?["shareId"] as? String == bobShare && jsonObject($0)?["seq"] as? Int == 3 }
        _ = await receiver.waitForRecords { $0.filter(\.acknowledged).count >= 3 }
        let status = try await harness.liveloc(["status", "--json"]).stdout
        second.send(SIGTERM)
        _ = await second.waitForExit()

        let ids = receiver.records().map(\.id)
        #expect(!ids.isEmpty)
        #expect(!ids.contains { $0.hasPrefix("evt_\(aliceShare)_") }, "alice's events went to bob's URL: \(ids.prefix(5))")
        let leftovers = jsonObject(status)?["leftovers"] as? [String] ?? []
        #expect(leftovers.contains { $0.hasSuffix("event(s) for webhook http://alice@127.0.0.1:\(port)/hook wait in the journal") },
                "\(leftovers)")
        let everything = status + (first.lines(.stderr) + second.lines(.stderr)).joined(separator: "\n")
        #expect(!everything.contains("alice-pw") && !everything.contains("bob-pw"))
    }

    @Test func aWebhookURLWithoutASecretStopsStartupNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"),
                                          harness.arguments(log: Self.drive, extra: ["--webhook.url", "http://127.0.0.1:9/hook"]),
                                          environment: ["CREDENTIALS_DIRECTORY": ""])
        #expect(result.status == 2)
        #expect(result.stderr.contains("webhook.secret_file"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aBadWebhookValueStopsStartupNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"),
                                          harness.arguments(log: Self.drive, extra: ["--webhook.backlog", "newest"]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("'webhook.backlog'"))
    }
}
