import Foundation
import Testing
import TestSupport

/// livelocd's Telegram and Traccar destinations over https:// to servers behind a private CA (a
/// self-hosted telegram-bot-api or Traccar): the loopback contract servers serve TLS with a
/// certificate from a throwaway CA that no system store holds, so only `telegram.ca_file` and
/// `traccar.ca_file` can make livelocd trust them.
@Suite(.enabled(if: PrivateCA.isAvailable))
struct DaemonTelegramTraccarHTTPSTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path
    static let token = "123456789:AAH-daemon_TLS-token"

    /// Both servers over TLS with the private CA's certificate, and the daemon's flags for them
    /// (without any ca_file).
    struct Servers {
        let ca: PrivateCA
        let api: BotAPIServer
        let traccar: OsmAndServer
        let flags: [String]

        init(_ harness: DaemonHarness) async throws {
            ca = try await PrivateCA.make(in: harness.directory)
            api = try await BotAPIServer.start(token: DaemonTelegramTraccarHTTPSTests.token,
                                               records: harness.directory.appendingPathComponent("calls.jsonl"), tls: ca.server)
            traccar = try await OsmAndServer.start(devices: ["van"], records: harness.directory.appendingPathComponent("positions.jsonl"),
                                                   tls: ca.server)
            let tokenFile = try harness.secretFile("telegram-token", containing: "\(DaemonTelegramTraccarHTTPSTests.token)\n")
            flags = ["--telegram.chat", "42", "--telegram.token_file", tokenFile.path, "--telegram.api_url", api.apiURL,
                     "--traccar.url", traccar.url, "--traccar.device_id", "van"]
        }

        func stop() {
            api.stop()
            traccar.stop()
        }
    }

    @Test func telegramAndTraccarBehindAPrivateCAAreDeliveredWhenTheirCAFileNamesIt() async throws {
        let harness = try DaemonHarness()
        let servers = try await Servers(harness)
        defer { servers.stop() }
        #expect(servers.api.apiURL.hasPrefix("https://") && servers.traccar.url.hasPrefix("https://"))
        let ca = servers.ca.certificateAuthority.path
        let daemon = try await harness.launch(log: Self.drive, speed: 10,
                                              extra: servers.flags + ["--telegram.ca_file", ca, "--traccar.ca_file", ca])
        _ = try await harness.liveloc(["start", "--duration", "1h"])
        let calls = await servers.api.waitForCalls { $0.contains { $0.method == "editMessageLiveLocation" && $0.status == 200 } }
        let positions = await servers.traccar.waitForRecords { $0.filter { $0.status == 200 }.count >= 5 }
        _ = try await harness.liveloc(["stop"])
        let stopped = await servers.api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        #expect(calls.first?.method == "sendLocation")
        #expect(calls.first?.status == 200)
        #expect(calls.contains { $0.method == "editMessageLiveLocation" && $0.status == 200 }, "\(calls)")
        #expect(stopped.last?.method == "stopMessageLiveLocation")
        #expect(stopped.last?.status == 200)
        #expect(positions.count >= 5, "\(daemon.lines(.stderr).suffix(5))")
        #expect(positions.allSatisfy { $0.status == 200 && $0.params["id"] == "van" && $0.inBody })
        #expect(!daemon.lines(.stderr).contains { $0.lowercased().contains("certificate") })
        #expect(!daemon.lines(.stderr).contains { $0.contains(Self.token) })
    }

    /// Without a ca_file the system store is all livelocd trusts: the TLS handshake fails, nothing
    /// reaches either server, the events wait in the journal, and `liveloc status` says why, and
    /// where a private CA goes.
    @Test func withoutACAFileTheirCertificatesAreRefusedAndStatusSaysWhy() async throws {
        let harness = try DaemonHarness()
        let servers = try await Servers(harness)
        defer { servers.stop() }
        let daemon = try await harness.launch(log: Self.drive, speed: 10, extra: servers.flags)
        _ = try await harness.liveloc(["start", "--duration", "1h"])
        // Until both destinations report their failure: at most 100 status calls, 20 s.
        var errors: [String: String] = [:]
        var pending: [String: Int] = [:]
        let deadline = ContinuousClock.now + .seconds(20)
        var calls = 0
        while errors.count < 2, calls < 100, ContinuousClock.now < deadline {
            calls += 1
            try await Task.sleep(for: .milliseconds(200))
            let json = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
            let sinks = (json["status"] as? [String: Any] ?? json)["sinks"] as? [[String: Any]] ?? []
            for sink in sinks {
                guard let name = sink["name"] as? String, name == "telegram" || name == "traccar",
                      let delivery = sink["delivery"] as? [String: Any], let lastError = delivery["lastError"] as? String else { continue }
                errors[name] = lastError
                pending[name] = delivery["pending"] as? Int
            }
        }
        let text = try await harness.liveloc(["status"]).stdout
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        #expect(servers.api.calls().isEmpty)
        #expect(servers.traccar.records().isEmpty)
        for name in ["telegram", "traccar"] {
            let error = try #require(errors[name], "no error for \(name): \(text)")
            #expect(error.contains("SSL certificate problem"), "\(name): \(error)")
            #expect(error.contains("the system's CA store") && error.contains("ca_file"), "\(name): \(error)")
            #expect((pending[name] ?? 0) > 0, "\(name): its events wait in the journal")
        }
        #expect(text.contains("SSL certificate problem"), "\(text)")
    }

    @Test func aRelativeCAFileStopsStartupNamingTheKey() async throws {
        let harness = try DaemonHarness()
        for key in ["telegram.ca_file", "traccar.ca_file"] {
            let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: ["--\(key)", "ca.pem"]))
            #expect(result.status == 2)
            #expect(result.stderr.contains("invalid value 'ca.pem' for key '\(key)': expected an absolute path"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }

    @Test func aTraccarCAFileWithoutAURLStopsStartupNamingTheMissingKey() async throws {
        let harness = try DaemonHarness()
        let ca = harness.directory.appendingPathComponent("ca.pem").path  // a CA file must be readable when set
        try "-----BEGIN CERTIFICATE-----\n".write(toFile: ca, atomically: true, encoding: .utf8)
        let result = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: ["--traccar.ca_file", ca]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("traccar.ca_file needs 'traccar.url'"), "\(result.stderr)")
    }
}
