import Foundation
import Testing
import TestSupport

/// `liveloc share --telegram-chat …` and `--traccar …` against loopback servers written from the
/// published contracts (scripts/telegram-bot-api.py, scripts/osmand-server.py).
@Suite struct ShareToTelegramAndTraccarTests {
    static let token = "123456789:AAH-e2e_Loopback-token"
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    static func tokenFile(in directory: URL, mode: Int16 = 0o600) throws -> String {
        let path = directory.appendingPathComponent("telegram-token").path
        try "\(token)\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test func aFullShareIsOneLiveLocationEditedWithinTheRateEndedAtTheFinalPositionThenStopped() async throws {
        let directory = try Paths.temporaryDirectory("share-telegram")
        let api = try await BotAPIServer.start(token: Self.token, records: directory.appendingPathComponent("calls.jsonl"))
        defer { api.stop() }
        // A 15-minute share over the 22-minute drive at 60x: about 15 s, about 900 updates.
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Self.drive, "--speed", "60",
            "--telegram-chat", "42", "--telegram-token-file", try Self.tokenFile(in: directory), "--telegram-api-url", api.apiURL,
            "--state-directory", directory.appendingPathComponent("state").path,
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let calls = api.calls()
        let updates = result.stdoutLines.compactMap(jsonObject).filter { $0["event"] as? String == "updated" }
        let final = try #require(updates.last?["location"] as? [String: Any])
        #expect(final["isActive"] as? Bool == false)

        #expect(calls.filter { $0.method == "sendLocation" }.count == 1)
        #expect(calls.first?.method == "sendLocation")
        #expect(calls.first?.params["live_period"] == "900")
        // Within Telegram's flood limit all along: no 429, calls at least a second apart.
        #expect(calls.allSatisfy { $0.status == 200 }, "\(calls.filter { $0.status != 200 })")
        for (earlier, later) in zip(calls, calls.dropFirst()) { #expect(later.received - earlier.received >= 0.99) }
        let edits = calls.filter { $0.method == "editMessageLiveLocation" }
        #expect(edits.count >= 5)
        #expect(edits.count < updates.count / 10)  // coalesced: the newest position, not every fix
        #expect(edits.allSatisfy { $0.params["message_id"] == "1" })
        // stdout prints degrees to 9 decimals; the destinations get the fix's own doubles.
        #expect(abs((edits.last?.number("latitude") ?? 0) - (final["latitude"] as? Double ?? 1)) < 1e-8)
        #expect(abs((edits.last?.number("longitude") ?? 0) - (final["longitude"] as? Double ?? 1)) < 1e-8)
        #expect(calls.last?.method == "stopMessageLiveLocation")
        #expect(calls.last?.params["message_id"] == "1")
        #expect(!result.stderr.contains(Self.token))
        #expect(!result.stderr.contains("AAH-e2e"))
    }

    /// issue 23: `liveloc share` died with SIGILL on a 429 with `retry_after: 1e19`. The wait is
    /// bounded: the share ends, the drain timeout passes, and liveloc exits 0, the undelivered
    /// events left in the journal for the next run (it says so).
    @Test func anAbsurdRetryAfterDoesNotKillTheShare() async throws {
        let directory = try Paths.temporaryDirectory("share-telegram-429")
        let api = try await BotAPIServer.start(token: Self.token, records: directory.appendingPathComponent("calls.jsonl"),
                                               script: ["auto", "429:1e19"])
        defer { api.stop() }
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Self.drive, "--speed", "0", "--drain-timeout", "3",
            "--telegram-chat", "42", "--telegram-token-file", try Self.tokenFile(in: directory), "--telegram-api-url", api.apiURL,
            "--state-directory", directory.appendingPathComponent("state").path,
        ], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutLines.compactMap(jsonObject).last?["event"] as? String == "ended")
        #expect(api.calls().filter { $0.status == 429 }.count == 1)
        #expect(result.stderr.contains("they stay in the journal for the next run"), "\(result.stderr)")
    }

    @Test func everyAcceptedFixReachesTraccarOnceInOrderWithTheDocumentedUnits() async throws {
        let directory = try Paths.temporaryDirectory("share-traccar")
        let server = try await OsmAndServer.start(devices: ["livelocd-1"], records: directory.appendingPathComponent("positions.jsonl"))
        defer { server.stop() }
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Self.drive, "--speed", "0",
            "--traccar", server.url, "--traccar-id", "livelocd-1",
            "--state-directory", directory.appendingPathComponent("state").path,
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let updates = result.stdoutLines.compactMap(jsonObject).filter { $0["event"] as? String == "updated" }
        let records = server.records()

        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(updates.count > 800, "\(result.stderr)")
        #expect(records.count == updates.count, "\(result.stderr)")
        #expect(records.allSatisfy { $0.status == 200 && $0.params["id"] == "livelocd-1" })
        for (record, update) in zip(records, updates) {
            let location = try #require(update["location"] as? [String: Any])
            // stdout prints degrees to 9 decimals and speeds to 3; the destinations get the fix's own doubles.
            #expect(abs((record.number("lat") ?? 0) - (location["latitude"] as? Double ?? 1)) < 1e-8)
            #expect(abs((record.number("lon") ?? 0) - (location["longitude"] as? Double ?? 1)) < 1e-8)
            let time = try #require(location["lastUpdateAt"] as? String)
            let seconds = iso.date(from: time)!.timeIntervalSince1970.rounded(.down)
            #expect(record.number("timestamp") == seconds)
            if let speed = location["speed"] as? Double {
                #expect(abs((record.number("speed") ?? -1) - speed * 3600 / 1852) < 0.0015)  // knots
            }
            if let course = location["course"] as? Double { #expect(abs((record.number("bearing") ?? -1) - course) < 0.01) }
            if let altitude = location["altitude"] as? Double { #expect(abs((record.number("altitude") ?? -1) - altitude) < 0.01) }
            #expect(record.params["shareId"] == update["shareId"] as? String)
            #expect(record.params["expiresAt"] == location["expiresAt"] as? String)
        }
        #expect(records.dropLast().allSatisfy { $0.params["shareState"] == nil })
        #expect(records.last?.params["shareState"] == "ended")
    }

    /// A self-hosted Bot API server and Traccar behind a private CA (loopback servers whose
    /// certificate a throwaway CA signed): `--telegram-ca-file` and `--traccar-ca-file` name the CA
    /// to trust, and the share reaches both over https://.
    @Test(.enabled(if: PrivateCA.isAvailable))
    func theCAFileOptionsLetAShareReachServersBehindAPrivateCA() async throws {
        let directory = try Paths.temporaryDirectory("share-private-ca")
        let ca = try await PrivateCA.make(in: directory)
        let api = try await BotAPIServer.start(token: Self.token, records: directory.appendingPathComponent("calls.jsonl"), tls: ca.server)
        defer { api.stop() }
        let traccar = try await OsmAndServer.start(devices: ["livelocd-1"], records: directory.appendingPathComponent("positions.jsonl"),
                                                   tls: ca.server)
        defer { traccar.stop() }
        #expect(api.apiURL.hasPrefix("https://") && traccar.url.hasPrefix("https://"))
        // A 15-minute share of the drive, as fast as it replays: about 900 updates, ended.
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Self.drive, "--speed", "0",
            "--telegram-chat", "42", "--telegram-token-file", try Self.tokenFile(in: directory), "--telegram-api-url", api.apiURL,
            "--telegram-ca-file", ca.certificateAuthority.path,
            "--traccar", traccar.url, "--traccar-id", "livelocd-1", "--traccar-ca-file", ca.certificateAuthority.path,
            "--state-directory", directory.appendingPathComponent("state").path,
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let updates = result.stdoutLines.compactMap(jsonObject).filter { $0["event"] as? String == "updated" }
        let calls = api.calls()
        let positions = traccar.records()

        #expect(updates.count > 800, "\(result.stderr)")
        #expect(calls.first?.method == "sendLocation")
        #expect(calls.last?.method == "stopMessageLiveLocation")
        #expect(calls.allSatisfy { $0.status == 200 }, "\(calls)")
        #expect(positions.count == updates.count, "\(result.stderr)")
        #expect(positions.allSatisfy { $0.status == 200 })
        #expect(positions.last?.params["shareState"] == "ended")
        #expect(!result.stderr.lowercased().contains("certificate"), "\(result.stderr)")
    }

    @Test func badTelegramAndTraccarOptionsAreOneLineErrors() async throws {
        let directory = try Paths.temporaryDirectory("share-telegram-options")
        let open = try Self.tokenFile(in: directory, mode: 0o644)
        let ca = directory.appendingPathComponent("ca.pem").path  // a CA file must be readable when set
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: ca, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--telegram-chat", "42"], "--telegram-chat needs --telegram-token-file"),
            (["--telegram-chat", "42", "--telegram-token-file", open], "\(open) is open to its group or others"),
            (["--telegram-chat", "chat", "--telegram-token-file", open], "invalid value 'chat' for --telegram-chat"),
            (["--telegram-token-file", open], "--telegram-token-file needs --telegram-chat"),
            (["--traccar", "http://127.0.0.1:5055"], "--traccar needs --traccar-id"),
            (["--traccar", "udp://x", "--traccar-id", "d"], "invalid Traccar URL"),
            (["--telegram-ca-file", ca], "--telegram-ca-file needs --telegram-chat"),
            (["--traccar-ca-file", ca], "--traccar-ca-file needs --traccar URL"),
        ]
        for (options, message) in cases {
            let result = try await runProcess(Paths.executable("liveloc"),
                                              ["share", "--duration", "15m", "--replay", Self.drive] + options)
            #expect(result.status == 2, "\(options)")
            #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(!result.stderr.contains(Self.token))
        }
    }
}
