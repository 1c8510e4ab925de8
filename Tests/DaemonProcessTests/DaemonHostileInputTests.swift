import Daemon
import Foundation
import Testing
import TestSupport

/// The small ones: bad input is refused at start (exit 2, naming the key or file), and the logs and
/// the status say only what is so.
@Suite struct DaemonHostileInputTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test(arguments: ["http://", "https://", "http:///hook", "ftp://example.com/"])
    func aWebhookURLWithoutSchemeOrHostExitsWith2NamingTheKey(url: String) async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: ["--webhook.url", url]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("'webhook.url'"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aConfigLineThatIsNotUTF8IsReportedAtItsLine() throws {
        var configuration = DaemonConfiguration(environment: [:])
        let bytes = Array("source = gpsd\n# fine\ngpsd.host = caf".utf8) + [0xE9] + Array("\n".utf8)
        #expect(throws: ConfigurationError.notUTF8(at: .init(file: "x.conf", line: 3))) {
            try configuration.apply(fileBytes: bytes, path: "x.conf")
        }
        #expect(ConfigurationError.notUTF8(at: .init(file: "x.conf", line: 3)).description == "x.conf:3: not UTF-8 text")
    }

    @Test func aConfigFileThatIsNotUTF8StopsTheDaemonNamingItsLine() async throws {
        let harness = try DaemonHarness()
        let config = harness.directory.appendingPathComponent("latin1.conf")
        try (Data("# livelocd\n\ngpsd.host = caf".utf8) + Data([0xE9, 0x0A])).write(to: config)
        let result = try await runProcess(Paths.executable("livelocd"), ["--config", config.path])
        #expect(result.status == 2)
        #expect(result.stderr == "livelocd: \(config.path):3: not UTF-8 text\n")
    }

    @Test func aKeySetTwiceInAFileIsAnErrorNamingBothLines() async throws {
        var configuration = DaemonConfiguration(environment: [:])
        #expect(throws: ConfigurationError.duplicateKey(key: "gpsd.host", firstLine: 2, at: .init(file: "x.conf", line: 5))) {
            try configuration.apply(fileText: "source = gpsd\ngpsd.host = a\ngpsd.port = 2947\n\ngpsd.host = b\n", path: "x.conf")
        }
        let harness = try DaemonHarness()
        let config = harness.directory.appendingPathComponent("twice.conf").path
        try "gpsd.port = 2947\n# later\ngpsd.port = 2948\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await runProcess(Paths.executable("livelocd"), ["--config", config])
        #expect(result.status == 2)
        #expect(result.stderr == "livelocd: \(config):3: key 'gpsd.port' is already set at line 1 (lines 1 and 3); a key may be set once\n")
    }

    @Test func aKeyDeclaredRepeatableMayAppearOnSeveralLinesEachLineSettingIt() throws {
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileBytes: Array("gpsd.port = 2947\ngpsd.port = 2948\n".utf8), path: "x.conf",
                                repeatable: ["gpsd.port"])
        #expect(configuration.source.gpsd.port == 2948)
    }

    @Test func aCommandLineFlagStillOverridesAKeyOfTheFile() throws {
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileText: "gpsd.port = 2947\n", path: "x.conf")
        try configuration.set("gpsd.port", to: "2948")
        #expect(configuration.source.gpsd.port == 2948)
    }

    @Test func sigtermDoesNotLogThatTheSourceEnded() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 10, loop: true)
        // The control server's first line comes once the services run (and SIGTERM is caught).
        try await daemon.waitForLine(.stderr) { $0.contains("control connections") }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        #expect(daemon.lines(.stderr).contains { $0.contains("SIGTERM") })
        #expect(!daemon.lines(.stderr).contains { $0.contains("source ended") }, "\(daemon.lines(.stderr))")
    }

    @Test func aReplayThatRunsOutStillLogsThatTheSourceEnded() async throws {
        let harness = try DaemonHarness()
        let log = try harness.syntheticLog(named: "short.nmea", start: Date(timeIntervalSince1970: 1_773_475_200), seconds: 5)
        let daemon = try await harness.launch(log: log, speed: 0, loop: false)
        try await daemon.waitForLine(.stderr) { $0.contains("source ended") }
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    @Test func aWebhookSecretFileReadableByOthersStopsTheDaemonNamingTheFile() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        chmod(secretFile.path, 0o644)
        let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: [
            "--webhook.url", "http://127.0.0.1:9/hook", "--webhook.secret_file", secretFile.path]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("\(secretFile.path) is open to its group or others (mode 0644)"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aWebhookKeyShorterThan24BytesStopsTheDaemonNamingTheFile() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.secretFile("webhook-secret", containing: "whsec_AAE=\n")
        let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: [
            "--webhook.url", "http://127.0.0.1:9/hook", "--webhook.secret_file", secretFile.path]))
        #expect(result.status == 2)
        #expect(result.stderr.contains(secretFile.path) && result.stderr.contains("2-byte key"), "\(result.stderr)")
        // The key's text is not shown (the path is left out of the search: its random hex part can hold "AAE").
        #expect(!result.stderr.replacingOccurrences(of: secretFile.path, with: "").contains("AAE"))
    }

    @Test func theStatusTextShowsPendingAcknowledgedAndDroppedForTheWebhookNotDelivered() async throws {
        let harness = try DaemonHarness()
        let secretFile = try harness.webhookSecretFile()
        let receiver = try await WebhookReceiver.start(secretFile: secretFile, records: harness.directory.appendingPathComponent("records.jsonl"))
        defer { receiver.stop() }
        let daemon = try await harness.launch(log: Self.drive, extra: [
            "--webhook.url", receiver.url, "--webhook.secret_file", secretFile.path])
        _ = try await harness.liveloc(["start", "--duration", "15m"])
        try await daemon.waitForLine { jsonObject($0)?["seq"] as? Int == 3 }
        _ = await receiver.waitForRecords(timeout: .seconds(20)) { $0.filter(\.acknowledged).count >= 3 }
        let status = try await harness.liveloc(["status"])
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
        #expect(status.status == 0)
        //   stdout    4 delivered
        //   webhook   active · 1 pending · 3 acknowledged · 0 dropped
        let lines = status.stdout.split(separator: "\n").map(String.init)
        let webhook = try #require(lines.first { $0.hasPrefix("  webhook ") })
        #expect(webhook.wholeMatch(of: /\ \ webhook +active · \d+ pending · \d+ acknowledged · \d+ dropped/) != nil, "\(webhook)")
        #expect(!webhook.contains("delivered"), "\(webhook)")
        #expect(lines.contains { $0.wholeMatch(of: /\ \ stdout +\d+ delivered/) != nil }, "\(lines)")
    }
}
