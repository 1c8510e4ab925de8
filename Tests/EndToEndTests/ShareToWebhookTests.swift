import Foundation
import Testing
import TestSupport

/// `liveloc share --webhook` against a real receiver on loopback that checks signatures itself.
@Suite struct ShareToWebhookTests {
    @Test func everyEventOfAShareReachesTheWebhookSignedAndInOrderBeforeLivelocExits() async throws {
        let directory = try Paths.temporaryDirectory("share-webhook")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secretFile)
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }

        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path, "--speed", "0",
            "--webhook", receiver.url, "--webhook-secret-file", secretFile.path,
            "--outbox", directory.appendingPathComponent("outbox.sqlite").path,
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.stdoutLines
        let delivered = receiver.deliveries()
        #expect(delivered.count == printed.count)
        #expect(delivered.map(\.body) == printed)
        #expect(delivered.allSatisfy { $0.signatureValid })
        #expect(Set(delivered.map(\.id)).count == delivered.count)
        #expect(printed.last?.contains(#""reason":"source-ended""#) == true)
    }

    /// Issue 29, item 1, for `liveloc share --id` with a journal: a second run with the same id and
    /// state directory made a second share `trip-9` under the same `evt_trip-9_<seq>` ids (other
    /// bodies, but for a replay at speed 0 as here), which a receiver deduplicating on webhook-id
    /// dropped, all of it. It is refused in one line (exit 1).
    @Test func aSecondShareWithAnIDTheJournalHasSeenIsRefused() async throws {
        let directory = try Paths.temporaryDirectory("share-webhook")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secretFile)
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }
        func share() async throws -> ProcessResult {
            try await runProcess(Paths.executable("liveloc"), [
                "share", "--duration", "15m", "--id", "trip-9", "--replay", Paths.fixture("fix-loss.nmea").path, "--speed", "0",
                "--webhook", receiver.url, "--webhook-secret-file", secretFile.path,
                "--state-directory", directory.appendingPathComponent("state").path,
            ], timeout: .seconds(120))
        }
        let first = try await share()
        let second = try await share()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(second.status == 1, "\(second.stderr)")
        #expect(second.stdoutLines.isEmpty)
        let refusal = second.stderr.split(separator: "\n").filter { $0.contains("trip-9") }
        #expect(refusal.count == 1 && refusal.first?.contains("used before") == true, "\(second.stderr)")
        let records = receiver.records()
        #expect(!records.isEmpty)
        // A second share under the same id would reach the receiver as ids it already has: dropped there.
        let duplicates = records.filter(\.duplicate)
        #expect(duplicates.isEmpty, "\(duplicates.count) of \(records.count) requests dropped as duplicates: \(duplicates.prefix(3).map(\.id))")
    }

    @Test func aWebhookWithoutASecretFileIsAUsageError() async throws {
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path,
            "--webhook", "http://127.0.0.1:9/hook",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--webhook needs --webhook-secret-file"))
    }
}

/// A reader of stdout that goes away or stops reading must not cost any other destination its events.
@Suite struct StdoutReaderTests {
    @Test func stdoutClosingEndsTheShareAsStoppedForTheWebhookThenLivelocExits() async throws {
        let directory = try Paths.temporaryDirectory("share-head")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secretFile)
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }
        // `liveloc share … | head -n 3`: head exits after three lines; the next write gets EPIPE.
        let command = [Paths.executable("liveloc").path, "share", "--duration", "15m",
                       "--replay", Paths.fixture("drive-multignss-1hz.nmea").path, "--speed", "20",
                       "--webhook", receiver.url, "--webhook-secret-file", secretFile.path,
                       "--state-directory", directory.appendingPathComponent("state").path]
            .map { "'\($0)'" }.joined(separator: " ") + " | head -n 3"
        let started = ContinuousClock.now
        let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", command], timeout: .seconds(60))
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(result.stdoutLines.count == 3)
        let events = receiver.deliveries().compactMap { jsonObject($0.body) }
        #expect(events.last?["event"] as? String == "ended")
        #expect(events.last?["reason"] as? String == "stopped")
        let final = events.dropLast().last?["location"] as? [String: Any]
        #expect(final?["isActive"] as? Bool == false)
        #expect(events.compactMap { $0["seq"] as? Int } == Array(1...max(events.count, 1)))
    }

    @Test func aDaemonWhoseStdoutNobodyReadsStillDeliversToTheWebhookAndStopsOnTime() async throws {
        let harness = try DaemonHarness()
        let secretFile = harness.directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secretFile)
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: harness.directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }
        let process = Process()
        process.executableURL = Paths.executable("livelocd")
        process.arguments = harness.arguments(log: Paths.fixture("drive-multignss-1hz.nmea").path, speed: 200,
                                              extra: ["--webhook.url", receiver.url, "--webhook.secret_file", secretFile.path])
        let neverRead = Pipe()  // 64 KiB of events fill it; nobody reads them
        process.standardOutput = neverRead
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try await process.runAsTestChild()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Up (its control socket made) within 30 s, however loaded the machine.
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: harness.socketPath) {
            try await Task.sleep(for: .milliseconds(100))
        }
        let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // ~350 bytes an event: 1,200 events are more than the pipe (64 KiB) and livelocd's stdout
        // buffer (256 KiB) hold together.
        let records = await receiver.waitForRecords(timeout: .seconds(40)) { records in
            records.filter { $0.acknowledged && $0.body.contains(id) }.count >= 1_200
        }
        #expect(records.filter { $0.acknowledged && $0.body.contains(id) }.count >= 1_200)
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let stdout = (status["sinks"] as? [[String: Any]])?.first { $0["name"] as? String == "stdout" }
        #expect((stdout?["failed"] as? Int ?? 0) > 0, "stdout's dropped events are counted")
        let stopping = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        for _ in 0..<100 where process.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning)
        #expect(ContinuousClock.now - stopping < .seconds(10))
    }
}
