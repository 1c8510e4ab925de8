import Foundation
import Testing
import TestSupport

/// livelocd with its Telegram and Traccar destinations, against loopback servers written from the
/// published contracts (scripts/telegram-bot-api.py, scripts/osmand-server.py).
@Suite struct DaemonTelegramTraccarTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path
    static let token = "123456789:AAH-daemon_Loopback-token"

    /// A loopback Bot API for `harness` (its calls recorded in the harness's directory), with
    /// livelocd's arguments that send to it (chat 42, the token in a secret file).
    static func botAPI(for harness: DaemonHarness, script: [String] = [], errorDescription: String? = nil) async throws
        -> (api: BotAPIServer, arguments: [String]) {
        let tokenFile = try Self.tokenFile(harness)
        let api = try await BotAPIServer.start(token: token, records: harness.directory.appendingPathComponent("calls.jsonl"),
                                               script: script, errorDescription: errorDescription)
        return (api, ["--telegram.chat", "42", "--telegram.token_file", tokenFile, "--telegram.api_url", api.apiURL])
    }

    static func tokenFile(_ harness: DaemonHarness) throws -> String {
        try harness.secretFile("telegram-token", containing: "\(token)\n").path
    }

    /// Whether `calls` holds at least `count` live-location edits Telegram accepted.
    static func edits(_ calls: some Sequence<BotAPICall>, atLeast count: Int) -> Bool {
        calls.filter { $0.method == "editMessageLiveLocation" && $0.status == 200 }.count >= count
    }

    /// Positions 20 times a second against Telegram's one edit a second: the queue keeps the newest,
    /// and `status` counts the ones replaced as coalesced (each edit carried a newer one), not dropped.
    @Test func statusCallsTelegramsReplacedPositionsCoalesced() async throws {
        let harness = try DaemonHarness()
        let (api, telegram) = try await Self.botAPI(for: harness)
        defer { api.stop() }
        let daemon = try await harness.launch(log: Self.drive, speed: 20, extra: telegram)
        _ = try await harness.liveloc(["start", "--duration", "1h"])
        await api.waitForCalls { Self.edits($0, atLeast: 2) }
        let text = try await harness.liveloc(["status"])
        let json = try await harness.liveloc(["status", "--json"])
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        let line = try #require(text.stdoutLines.first { $0.hasPrefix("  telegram") }, "\(text.stdout)")
        let coalesced = try #require(line.firstMatch(of: /(\d+) coalesced/).flatMap { Int($0.1) }, "\(line)")
        #expect(coalesced > 0, "\(line)")
        #expect(!line.contains("dropped"), "\(line)")
        let sinks = try #require(jsonObject(json.stdout)?["sinks"] as? [[String: Any]])
        let delivery = try #require(sinks.first { $0["name"] as? String == "telegram" }?["delivery"] as? [String: Any])
        #expect(delivery["coalesces"] as? Bool == true)
        #expect(sinks.first { $0["name"] as? String == "stdout" }?["delivery"] == nil)
    }

    @Test func afterASIGKILLMidShareTheRestartedDaemonGoesOnEditingTheSameMessage() async throws {
        let harness = try DaemonHarness()
        let (api, telegram) = try await Self.botAPI(for: harness)
        defer { api.stop() }

        let first = try await harness.launch(log: Self.drive, speed: 10, extra: telegram)
        _ = try await harness.liveloc(["start", "--duration", "1h"])
        let before = await api.waitForCalls { Self.edits($0, atLeast: 2) }
        await first.kill9()
        let callsBeforeKill = api.calls().count

        let second = try await harness.launch(log: Self.drive, speed: 10, extra: telegram)
        await api.waitForCalls { calls in
            Self.edits(calls.dropFirst(callsBeforeKill), atLeast: 2)
        }
        _ = try await harness.liveloc(["stop"])
        let calls = await api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        second.send(SIGTERM)
        _ = await second.waitForExit()

        #expect(before.first?.method == "sendLocation")
        #expect(before.first?.params["live_period"] == "3600")
        #expect(calls.filter { $0.method == "sendLocation" }.count == 1)
        let afterRestart = calls.dropFirst(callsBeforeKill)
        #expect(Self.edits(afterRestart, atLeast: 2))
        #expect(calls.dropFirst().allSatisfy { $0.params["message_id"] == "1" })
        #expect(calls.last?.method == "stopMessageLiveLocation")
        #expect(calls.last?.status == 200)
        let logs = first.lines(.stderr) + second.lines(.stderr)
        #expect(!logs.contains { $0.contains(Self.token) || $0.contains("AAH-daemon") })
    }

    /// issue 23: a 429 with `retry_after: 1e19` ended livelocd with SIGILL a second later, and again
    /// at every restart (the edit is sent again). Now the daemon waits (a bounded wait), answers
    /// status meanwhile, and stops cleanly with its share still queued.
    @Test func aBotAPIAnswerWithAnAbsurdRetryAfterDoesNotStopTheDaemon() async throws {
        let harness = try DaemonHarness()
        let (api, telegram) = try await Self.botAPI(for: harness, script: ["auto", "429:1e19"])
        defer { api.stop() }
        let daemon = try await harness.launch(log: Self.drive, speed: 10, extra: telegram)
        _ = try await harness.liveloc(["start", "--duration", "15m"])
        await api.waitForCalls { $0.contains { $0.status == 429 } }
        try await daemon.waitForLine(.stderr) { $0.contains("Telegram flood control") }
        try await Task.sleep(for: .seconds(2))  // the crash came about 1 s after the answer
        let status = try await harness.liveloc(["status"])
        daemon.send(SIGTERM)
        let exit = await daemon.waitForExit()

        #expect(api.calls().filter { $0.status == 429 }.count == 1, "waiting, not sending again at once")
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("retrying"), "\(status.stdout)")
        #expect(exit == 0, "\(daemon.lines(.stderr).suffix(5))")
    }

    /// A server's text reaches `liveloc status`, the JSON status and the log as one line without
    /// control characters: a newline or an escape sequence from a remote server must neither break
    /// a line nor reach the terminal (here: clear the screen, then a fake status line in red).
    @Test func aServersDescriptionWithANewlineAndAnEscapeSequenceIsShownEscaped() async throws {
        let harness = try DaemonHarness()
        let hostile = "Forbidden: bot was kicked\n\u{1B}[2J\u{1B}[31m  telegram  active · 0 pending\u{9B}1A\u{7}"
        let (api, telegram) = try await Self.botAPI(for: harness, script: ["403"], errorDescription: hostile)
        defer { api.stop() }
        let daemon = try await harness.launch(log: Self.drive, speed: 10, extra: telegram)
        _ = try await harness.liveloc(["start", "--duration", "15m"])
        try await daemon.waitForLine(.stderr) { $0.contains("telegram: disabled") }
        let text = try await harness.liveloc(["status"])
        let json = try await harness.liveloc(["status", "--json"])
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        #expect(api.calls().first?.description == hostile, "the server did send it")
        let isControl: (Unicode.Scalar) -> Bool = { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
        #expect(text.status == 0)
        #expect(!text.stdout.unicodeScalars.contains(where: isControl), "\(text.stdout.debugDescription)")
        // The destination's row, then its last error on a line of its own.
        let lines = text.stdout.split(separator: "\n")
        let rowIndex = try #require(lines.firstIndex { $0.hasPrefix("  telegram") })
        let row = try #require(lines.dropFirst(rowIndex + 1).first, "\(text.stdout)")
        #expect(row.hasPrefix("            last error: "), "\(row)")
        #expect(row.contains(#"bot was kicked\u{A}\u{1B}[2J\u{1B}[31m  telegram  active · 0 pending\u{9B}1A\u{7})"#), "\(row)")
        #expect(!text.stdout.split(separator: "\n").contains { $0.hasPrefix("  telegram  active") })
        // The JSON status carries the same one-line text (a dashboard shows it as it is).
        let status = try #require(jsonObject(json.stdout))
        let sinks = (status["status"] as? [String: Any] ?? status)["sinks"] as? [[String: Any]] ?? []
        let delivery = try #require(sinks.first { $0["name"] as? String == "telegram" }?["delivery"] as? [String: Any])
        let lastError = try #require(delivery["lastError"] as? String)
        #expect(!lastError.unicodeScalars.contains(where: isControl) && !lastError.contains("\n"), "\(lastError.debugDescription)")
        #expect(lastError.contains(#"kicked\u{A}\u{1B}[2J"#))
        // The log: each message one line, escaped.
        let logged = daemon.lines(.stderr).filter { $0.contains("bot was kicked") }
        #expect(!logged.isEmpty && logged.allSatisfy { !$0.unicodeScalars.contains(where: isControl) && $0.contains(#"\u{1B}[2J"#) },
                "\(logged)")
        #expect(!daemon.lines(.stderr).contains { $0.hasPrefix("  telegram") })
    }

    @Test func anUnknownTraccarDeviceStopsTheDestinationWithAClearStatus() async throws {
        let harness = try DaemonHarness()
        let server = try await OsmAndServer.start(devices: ["livelocd-1"], records: harness.directory.appendingPathComponent("positions.jsonl"))
        defer { server.stop() }
        let daemon = try await harness.launch(log: Self.drive, speed: 10, extra: ["--traccar.url", server.url, "--traccar.device_id", "typo"])
        _ = try await harness.liveloc(["start", "--duration", "15m"])
        try await daemon.waitForLine(.stderr) { $0.contains("traccar: disabled") }
        try await Task.sleep(for: .seconds(1))
        let json = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let text = try await harness.liveloc(["status"]).stdout
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        #expect(server.records().count == 1)  // not a retry loop
        let sinks = (json["status"] as? [String: Any] ?? json)["sinks"] as? [[String: Any]] ?? []
        let traccar = try #require(sinks.first { $0["name"] as? String == "traccar" })
        let delivery = try #require(traccar["delivery"] as? [String: Any])
        #expect(delivery["state"] as? String == "disabled")
        #expect((delivery["lastError"] as? String)?.contains("Traccar does not know device id 'typo' (HTTP 400)") == true)
        #expect((delivery["pending"] as? Int ?? 0) > 0)
        #expect(text.contains("does not know device id 'typo'"))
    }

    @Test func aTokenFileOthersMayReadStopsStartupNamingTheKeyAndTheFile() async throws {
        let harness = try DaemonHarness()
        let open = try Self.tokenFile(harness)
        try #require(chmod(open, 0o644) == 0)
        let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: [
            "--telegram.chat", "42", "--telegram.token_file", open]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("'telegram.token_file'"))
        #expect(result.stderr.contains("\(open) is open to its group or others"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!result.stderr.contains(Self.token))
    }

    @Test func incompleteTelegramOrTraccarSettingsStopStartupNamingTheMissingKey() async throws {
        let harness = try DaemonHarness()
        let cases: [([String], String)] = [
            (["--telegram.chat", "42"], "telegram.chat needs 'telegram.token_file'"),
            (["--telegram.api_url", "http://127.0.0.1:1"], "needs 'telegram.chat'"),
            (["--telegram.chat", "@x"], "invalid value '@x' for key 'telegram.chat'"),
            (["--traccar.url", "http://127.0.0.1:5055"], "traccar.url needs 'traccar.device_id'"),
            (["--traccar.device_id", "a b"], "invalid value 'a b' for key 'traccar.device_id'"),
        ]
        for (options, message) in cases {
            let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: options),
                                              environment: ["CREDENTIALS_DIRECTORY": ""])
            #expect(result.status == 2, "\(options)")
            #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
        }
    }
}
