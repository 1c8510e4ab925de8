import Foundation
import Testing
import TestSupport

/// Issue 24: an event queued for one receiver goes to that receiver or to nobody. Each test runs
/// `liveloc share` three times with one state directory, as a user would:
/// 1. to receiver A while A is down (its events stay in the journal: `--drain-timeout 1`);
/// 2. to receiver B of the same kind: B gets its own share's events and none of A's, and the run
///    names A's waiting events in one line;
/// 3. to A again, now up: A gets the first run's events.
@Suite(.serialized) struct LeftoverEventsTests {
    static let log = Paths.fixture("fix-loss.nmea").path

    /// Runs one share; returns the share id it printed, and its stderr. With its receiver down the
    /// share waits 1 s for it (its events stay in the journal); with it up, until it took every
    /// event (at most 60 s: on a loaded machine 400 events may take more than a second).
    static func share(_ destination: [String], state: URL, receiverDown: Bool = false,
                      extra: [String] = []) async throws -> (id: String, events: Int, stderr: String) {
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", log, "--speed", "0", "--state-directory", state.path,
            "--drain-timeout", receiverDown ? "1" : "60",
        ] + destination + extra, timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.stdoutLines.compactMap(jsonObject)
        let id = try #require(events.first?["shareId"] as? String, "\(result.stderr)")
        return (id, events.count, result.stderr)
    }

    /// A webhook secret file of its own for each receiver.
    static func secret(in directory: URL, name: String) throws -> URL {
        let file = directory.appendingPathComponent("secret-\(name)")
        let key = Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try writeSecretFile("whsec_\(key)\n", to: file)
        return file
    }

    @Test func aWebhookReceiverNeverGetsEventsQueuedForAnother() async throws {
        let directory = try Paths.temporaryDirectory("leftovers-webhook")
        let state = directory.appendingPathComponent("state")
        let secretA = try Self.secret(in: directory, name: "a")
        let secretB = try Self.secret(in: directory, name: "b")
        let recordsA = directory.appendingPathComponent("a.jsonl")
        // A's port, taken and given back: nothing listens there during the first run.
        let probe = try await WebhookReceiver.start(secretFile: secretA, records: recordsA)
        let portA = probe.port
        probe.stop()
        let urlA = "http://127.0.0.1:\(portA)/a"
        let first = try await Self.share(["--webhook", urlA, "--webhook-secret-file", secretA.path], state: state, receiverDown: true)
        #expect(first.stderr.contains("not delivered yet; they stay in the journal for the next run to webhook \(urlA)"))

        let receiverB = try await WebhookReceiver.start(secretFile: secretB, records: directory.appendingPathComponent("b.jsonl"))
        defer { receiverB.stop() }
        let second = try await Self.share(["--webhook", receiverB.url, "--webhook-secret-file", secretB.path], state: state)
        let atB = receiverB.deliveries()
        #expect(atB.count == second.events)
        #expect(atB.allSatisfy { $0.body.contains("\"shareId\":\"\(second.id)\"") && $0.signatureValid },
                "B got \(atB.filter { !$0.body.contains(second.id) }.count) event(s) of another share")
        #expect(!receiverB.records().contains { $0.body.contains(first.id) })
        #expect(second.stderr.contains("event(s) for webhook \(urlA) wait in the journal"), "\(second.stderr)")

        let receiverA = try await WebhookReceiver.start(secretFile: secretA, records: recordsA, port: portA)
        defer { receiverA.stop() }
        let third = try await Self.share(["--webhook", urlA, "--webhook-secret-file", secretA.path], state: state)
        let atA = receiverA.deliveries()
        #expect(atA.filter { $0.body.contains(first.id) }.count == first.events, "the first run's events reach A, signed with A's secret")
        #expect(atA.filter { $0.body.contains(third.id) }.count == third.events)
        #expect(atA.allSatisfy { $0.signatureValid })
        #expect(!atA.contains { $0.body.contains(second.id) })
    }

    @Test func aTelegramChatNeverGetsTheLocationQueuedForAnother() async throws {
        let directory = try Paths.temporaryDirectory("leftovers-telegram")
        let state = directory.appendingPathComponent("state")
        let token = ShareToTelegramAndTraccarTests.token
        let tokenFile = try ShareToTelegramAndTraccarTests.tokenFile(in: directory)
        let probe = try await BotAPIServer.start(token: token, records: directory.appendingPathComponent("probe.jsonl"))
        let downURL = probe.apiURL
        probe.stop()
        let first = try await Self.share(["--telegram-chat", "100", "--telegram-token-file", tokenFile, "--telegram-api-url", downURL],
                                         state: state, receiverDown: true)

        let api = try await BotAPIServer.start(token: token, records: directory.appendingPathComponent("calls.jsonl"))
        defer { api.stop() }
        let second = try await Self.share(["--telegram-chat", "200", "--telegram-token-file", tokenFile, "--telegram-api-url", api.apiURL],
                                          state: state)
        let calls = api.calls()
        #expect(!calls.isEmpty)
        #expect(calls.allSatisfy { $0.params["chat_id"] == "200" || $0.params["chat_id"] == nil }, "\(calls.map(\.params))")
        #expect(calls.filter { $0.method == "sendLocation" }.count == 1, "one live location: the second run's share only")
        #expect(second.stderr.contains("event(s) for telegram bot 123456789 chat 100 via \(downURL) wait in the journal"), "\(second.stderr)")
        #expect(!second.stderr.contains("AAH-e2e"), "the token's secret part never reaches a log")
        _ = first
    }

    @Test func aTraccarDeviceNeverGetsPositionsQueuedForAnother() async throws {
        let directory = try Paths.temporaryDirectory("leftovers-traccar")
        let state = directory.appendingPathComponent("state")
        let records = directory.appendingPathComponent("positions.jsonl")
        let probe = try await OsmAndServer.start(devices: ["device-a", "device-b"], records: records)
        let port = Int(probe.url.split(separator: ":").last!)!
        probe.stop()
        let first = try await Self.share(["--traccar", "http://127.0.0.1:\(port)", "--traccar-id", "device-a"], state: state, receiverDown: true)

        let server = try await OsmAndServer.start(devices: ["device-a", "device-b"], records: records, port: port)
        defer { server.stop() }
        let second = try await Self.share(["--traccar", server.url, "--traccar-id", "device-b"], state: state)
        var positions = server.records()
        #expect(positions.count == second.events - 1, "one position per update; ended rides on the final one")
        #expect(positions.allSatisfy { $0.params["id"] == "device-b" && $0.params["shareId"] == second.id })
        #expect(second.stderr.contains("event(s) for traccar http://127.0.0.1:\(port) device device-a wait in the journal"))

        let third = try await Self.share(["--traccar", server.url, "--traccar-id", "device-a"], state: state)
        positions = server.records().filter { $0.params["id"] == "device-a" }
        #expect(positions.filter { $0.params["shareId"] == first.id }.count == first.events - 1)
        #expect(positions.filter { $0.params["shareId"] == third.id }.count == third.events - 1)
        #expect(!positions.contains { $0.params["shareId"] == second.id })
    }

    @Test(.enabled(if: Mosquitto.isAvailable)) func anMQTTDeviceTopicNeverGetsEventsQueuedForAnother() async throws {
        let directory = try Paths.temporaryDirectory("leftovers-mqtt")
        let state = directory.appendingPathComponent("state")
        let port = try GPSFake.freeLoopbackPort()
        let url = "mqtt://127.0.0.1:\(port)"
        // The broker is down for the first run.
        let first = try await Self.share(["--mqtt", url, "--mqtt-device", "a", "--mqtt-topic-prefix", "fleet"], state: state, receiverDown: true)

        let broker = try await Mosquitto.start(port: port)
        defer { Task { await broker.stop() } }
        let subscriber = try await MQTTSubscriber(port: port, topics: ["fleet/#"])
        defer { Task { await subscriber.stop() } }
        try await subscriber.waitUntilSubscribed()
        let second = try await Self.share(["--mqtt", url, "--mqtt-device", "b", "--mqtt-topic-prefix", "fleet"], state: state)
        let forB = try await subscriber.waitForMessages(count: second.events) { $0.topic == "fleet/b/events" }
        #expect(forB.allSatisfy { $0.payload.contains(second.id) })
        #expect(!subscriber.messages.contains { $0.payload.contains(first.id) }, "nothing of the first run's share reached the broker")
        #expect(second.stderr.contains("event(s) for mqtt \(url) prefix fleet device a format livelocd wait in the journal"))

        let third = try await Self.share(["--mqtt", url, "--mqtt-device", "a", "--mqtt-topic-prefix", "fleet"], state: state)
        let forA = try await subscriber.waitForMessages(count: first.events + third.events) { $0.topic == "fleet/a/events" }
        #expect(forA.filter { $0.payload.contains(first.id) }.count == first.events)
        #expect(!forA.contains { $0.payload.contains(second.id) })
    }

    @Test func twoSharesAtOnceWithOneStateDirectoryRefuseInOneLine() async throws {
        let directory = try Paths.temporaryDirectory("leftovers-lock")
        let state = directory.appendingPathComponent("state")
        let secret = try Self.secret(in: directory, name: "s")
        let receiver = try await WebhookReceiver.start(secretFile: secret, records: directory.appendingPathComponent("r.jsonl"))
        defer { receiver.stop() }
        let options = ["share", "--duration", "15m", "--replay", Self.log, "--speed", "1", "--state-directory", state.path,
                       "--webhook", receiver.url, "--webhook-secret-file", secret.path]
        let running = try await DaemonProcess(Paths.executable("liveloc"), options)
        defer { running.send(SIGKILL) }
        try await running.waitForLine(.stdout, timeout: .seconds(30)) { $0.contains("\"event\":\"updated\"") }
        let second = try await runProcess(Paths.executable("liveloc"), options)
        #expect(second.status == 1)
        #expect(second.stderr.split(separator: "\n").count == 1, "\(second.stderr)")
        #expect(second.stderr.contains("state directory \(state.path) is in use by process \(running.pid)"), "\(second.stderr)")
        #expect(second.stdout.isEmpty)
    }
}
