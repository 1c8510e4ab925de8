import Foundation
import Testing
import TestSupport

/// `liveloc share --log-level`: the lines below the level are left out of standard error, the
/// others kept. The runs share one state directory and a webhook where nothing listens, so that each
/// writes warnings (its events are not delivered) and, from the second on, an info line (the
/// journal resumes the events the run before left).
@Suite(.serialized) struct ShareLogLevelTests {
    static let log = Paths.fixture("fix-loss.nmea").path

    /// One share to `url`; with nothing listening there it waits 1 s for it, with a receiver there
    /// until it took every event (at most 60 s: 400 events may take more than a second on a loaded machine).
    static func share(url: String, secret: URL, state: URL, level: [String], receiverUp: Bool = false) async throws -> ProcessResult {
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", log, "--speed", "0", "--state-directory", state.path,
            "--drain-timeout", receiverUp ? "60" : "1",
            "--webhook", url, "--webhook-secret-file", secret.path,
        ] + level, timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.last?.contains(#""event":"ended""#) == true)
        return result
    }

    @Test func atWarningTheInfoLinesAreLeftOutAndAtErrorEverything() async throws {
        let directory = try Paths.temporaryDirectory("share-log-level")
        let state = directory.appendingPathComponent("state")
        let secret = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() + "\n", to: secret)
        // A port taken and given back: nothing listens there.
        let probe = try await WebhookReceiver.start(secretFile: secret, records: directory.appendingPathComponent("unused.jsonl"))
        let url = "http://127.0.0.1:\(probe.port)/hook"
        probe.stop()
        let resuming = "undelivered event(s) in the journal; resuming"
        let leftInTheJournal = "not delivered yet; they stay in the journal for the next run"

        _ = try await Self.share(url: url, secret: secret, state: state, level: [])
        let atInfo = try await Self.share(url: url, secret: secret, state: state, level: [])
        #expect(atInfo.stderr.contains(resuming), "\(atInfo.stderr)")
        #expect(atInfo.stderr.contains(leftInTheJournal), "\(atInfo.stderr)")

        let atWarning = try await Self.share(url: url, secret: secret, state: state, level: ["--log-level", "warning"])
        #expect(!atWarning.stderr.contains(resuming), "\(atWarning.stderr)")
        #expect(atWarning.stderr.contains(leftInTheJournal), "\(atWarning.stderr)")
        #expect(atWarning.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("liveloc: ") })

        let atError = try await Self.share(url: url, secret: secret, state: state, level: ["--log-level", "error"])
        #expect(atError.stderr.isEmpty, "\(atError.stderr)")
    }

    @Test func aBadLevelIsBadUsage() async throws {
        let result = try await runProcess(Paths.executable("liveloc"), ["share", "--duration", "15m", "--replay", Self.log,
                                                                        "--log-level", "verbose"])
        #expect(result.status == 2)
        #expect(result.stderr == "liveloc: share: invalid value 'verbose' for --log-level: expected debug, info, notice, warning or error\n")
        #expect(result.stdout.isEmpty)
    }
}

/// `--log-level debug` adds the per-event detail: one line per event a destination took.
@Suite(.serialized) struct ShareDebugLogTests {
    @Test func atDebugEachDeliveredEventHasALineAndAtInfoNone() async throws {
        let directory = try Paths.temporaryDirectory("share-debug-log")
        let secret = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() + "\n", to: secret)
        let receiver = try await WebhookReceiver.start(secretFile: secret, records: directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }
        for level in ["info", "debug"] {
            let result = try await ShareLogLevelTests.share(url: receiver.url, secret: secret,
                                                            state: directory.appendingPathComponent("state-\(level)"),
                                                            level: ["--log-level", level], receiverUp: true)
            let events = result.stdoutLines.compactMap(jsonObject)
            let delivered = result.stderr.split(separator: "\n").filter { $0.hasPrefix("liveloc: webhook: evt_") && $0.hasSuffix(" delivered") }
            if level == "debug" {
                #expect(delivered.count == events.count, "\(events.count) events: \(result.stderr)")
                if let first = events.first, let id = first["shareId"] as? String {
                    #expect(delivered.first == "liveloc: webhook: evt_\(id)_1 delivered")
                }
            } else {
                #expect(delivered.isEmpty, "\(result.stderr)")
            }
        }
    }
}
