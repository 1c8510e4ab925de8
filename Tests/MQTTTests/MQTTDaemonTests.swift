import Foundation
import Testing
import TestSupport

/// livelocd and `liveloc share` publishing to a real mosquitto through the journal: every event
/// arrives, in order after deduplication on shareId + seq, whatever happens to the daemon.
@Suite("MQTT from livelocd and liveloc share", .serialized, .enabled(if: Mosquitto.isAvailable))
struct MQTTDaemonTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    /// The events of share `id` on the subscriber, deduplicated on seq, in order of first arrival.
    static func events(_ subscriber: MQTTSubscriber, share id: String) -> [[String: Any]] {
        var seen = Set<Int>()
        return subscriber.messages.compactMap { jsonObject($0.payload) }.filter { event in
            guard event["shareId"] as? String == id, let seq = event["seq"] as? Int else { return false }
            return seen.insert(seq).inserted
        }
    }

    @Test func livelocdPublishesEveryEventAndStatusShowsTheBrokerLink() async throws {
        try await Mosquitto.with { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/events"])
            try await subscriber.waitUntilSubscribed()
            let harness = try DaemonHarness()
            let daemon = try await harness.launch(log: Self.drive, extra: ["--mqtt.url", broker.url, "--mqtt.device", "van"])
            let id = try await harness.liveloc(["start", "--duration", "1h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try await subscriber.waitForMessages(count: 3) { jsonObject($0.payload)?["shareId"] as? String == id }
            let status = try await harness.liveloc(["status", "--json"])
            let sinks = try #require(jsonObject(status.stdout)?["sinks"] as? [[String: Any]], "\(status.stdout)")
            let mqtt = try #require(sinks.first { $0["name"] as? String == "mqtt" })
            #expect((mqtt["link"] as? [String: Any])?["state"] as? String == "connected")
            let text = try await harness.liveloc(["status"])
            #expect(text.stdout.contains("mqtt") && text.stdout.contains("broker connected"), "\(text.stdout)")
            #expect(try await harness.liveloc(["stop"]).status == 0)
            try await subscriber.waitForMessages(count: 1) { jsonObject($0.payload)?["event"] as? String == "ended" }
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
            #expect(daemon.lines(.stderr).contains { $0.contains("mqtt: connected to \(broker.url)") })
            let events = Self.events(subscriber, share: id)
            #expect(events.map { $0["seq"] as? Int } == Array(1...events.count).map { $0 })
            #expect(events.last?["event"] as? String == "ended")
            // Exactly what stdout printed, in the same order.
            let printed = daemon.lines(.stdout).filter { jsonObject($0)?["shareId"] as? String == id }
            #expect(subscriber.messages.map(\.payload).filter { jsonObject($0)?["shareId"] as? String == id } == printed)
        }
    }

    @Test func livelocdSIGKILLedMidShareAndRestartedLosesNothingOnTheEventsTopic() async throws {
        try await Mosquitto.with { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/events"])
            try await subscriber.waitUntilSubscribed()
            let harness = try DaemonHarness()
            let mqtt = ["--mqtt.url", broker.url, "--mqtt.device", "van"]
            var daemon = try await harness.launch(log: Self.drive, speed: 20, extra: mqtt)
            let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            var random = SeededGenerator(seed: 0x4d51_5454)  // the same moments every run: a failure reproduces
            for _ in 0..<6 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 150...700, using: &random)))
                await daemon.kill9()
                daemon = try await harness.launch(log: Self.drive, speed: 20, extra: mqtt)
            }
            try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id }
            #expect(try await harness.liveloc(["stop"]).status == 0)
            try await subscriber.waitForMessages(count: 1, timeout: .seconds(30)) {
                let event = jsonObject($0.payload)
                return event?["shareId"] as? String == id && event?["event"] as? String == "ended"
            }
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
            let events = Self.events(subscriber, share: id)
            #expect(events.count > 10)
            #expect(events.map { $0["seq"] as? Int ?? 0 } == Array(1...max(events.count, 1)))
            #expect(events.last?["event"] as? String == "ended" && events.last?["reason"] as? String == "stopped")
            #expect((events.dropLast().last?["location"] as? [String: Any])?["isActive"] as? Bool == false)
            // A seq always carries the same payload, however often it was sent.
            var payloads: [String: String] = [:]
            for message in subscriber.messages {
                guard let seq = jsonObject(message.payload)?["seq"] as? Int else { continue }
                if let earlier = payloads["\(seq)"] { #expect(earlier == message.payload) }
                payloads["\(seq)"] = message.payload
            }
        }
    }

    @Test func livelocShareMQTTPublishesTheSameEventsAsStdout() async throws {
        try await Mosquitto.with { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["fleet/cli/#"])
            try await subscriber.waitUntilSubscribed()
            let state = try Paths.temporaryDirectory("liveloc-mqtt")
            defer { try? FileManager.default.removeItem(at: state) }
            let result = try await runProcess(Paths.executable("liveloc"), [
                "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path, "--speed", "0",
                "--mqtt", broker.url, "--mqtt-device", "cli", "--mqtt-topic-prefix", "fleet", "--state-directory", state.path,
            ], timeout: .seconds(60))
            #expect(result.status == 0, "\(result.stderr)")
            let printed = result.stdoutLines
            let received = try await subscriber.waitForMessages(count: printed.count) { $0.topic == "fleet/cli/events" }
            #expect(received.map(\.payload) == printed)
            #expect(result.stderr.contains("mqtt: connected to"))
        }
    }

    @Test func aBadMQTTValueStopsLivelocdWithOneLineNamingTheKey() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"),
                                          harness.arguments(log: Self.drive, extra: ["--mqtt.url", "mqtt://b", "--mqtt.qos", "5"]))
        #expect(result.status == 2)
        #expect(result.stderr == "livelocd: --mqtt.qos: invalid value '5' for key 'mqtt.qos': expected 0, 1 or 2\n")
    }
}

/// What the MQTT destination costs the daemon's footprint (bench/daemon-footprint.sh MQTT=1):
/// libmosquitto, and never the webhook's libcurl.
@Suite("MQTT footprint", .enabled(if: Mosquitto.isAvailable))
struct MQTTFootprintTests {
    @Test func aDaemonWithOnlyMQTTUsesLibmosquittoAndDoesNotLoadLibcurl() async throws {
        try await Mosquitto.with { broker in
            let harness = try DaemonHarness()
            let daemon = try await harness.launch(log: MQTTDaemonTests.drive, extra: ["--mqtt.url", broker.url, "--mqtt.device", "van"])
            try await daemon.waitForLine(.stderr) { $0.contains("mqtt: connected to") }
            let libraries = try #require(mappedFileNames(ofProcess: daemon.pid))
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
            #expect(libraries.contains { $0.hasPrefix("libmosquitto.so") }, "\(libraries.sorted())")
            #expect(!libraries.contains { $0.hasPrefix("libcurl") }, "\(libraries.sorted())")
            #expect(!libraries.contains { $0.contains("Foundation") }, "\(libraries.sorted())")
        }
    }
}
