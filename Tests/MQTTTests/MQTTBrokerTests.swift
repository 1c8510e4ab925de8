import Delivery
import Foundation
import LiveLocation
@testable import MQTT
import Testing
import TestSupport

/// The MQTT destination against a real mosquitto (Debian's), started by each test on free loopback
/// ports with its own configuration, and watched with mosquitto_sub.
@Suite("MQTT against a real broker", .serialized, .enabled(if: Mosquitto.isAvailable))
struct MQTTBrokerTests {
    @Test func everyEventArrivesInOrderOnTheEventsTopicAndTheRetainedLocationIsTheLatest() async throws {
        try await Mosquitto.with() { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/#"])
            try await subscriber.waitUntilSubscribed()
            let destination = try MQTTDestination(configuration: try testConfiguration(broker.url, device: "van"), log: .silent)
            let events = queuedShare(updates: 60)
            let report = try await whileRunning(destination) {
                try await deliver(events, to: destination)
            }
            #expect(report.retries.isEmpty)
            #expect(report.sends == events.count)
            let received = try await subscriber.waitForMessages(count: events.count) { $0.topic == "livelocd/van/events" }
            #expect(received.map(\.payload) == events.map { String(decoding: $0.json, as: UTF8.self) })
            #expect(received.allSatisfy { $0.qos == 1 && !$0.retained })
            // Every update also went to the location topic, with the share's time left as its expiry.
            let locations = subscriber.messages.filter { $0.topic == "livelocd/van/location" }
            #expect(locations.count == 61)
            #expect(locations.first?.expirySeconds.map { (890...900).contains($0) } == true)
            #expect(locations.last?.expirySeconds == nil)
            // A new subscriber gets the retained location: the final update.
            let late = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/location"])
            let retained = try await late.waitForMessages(count: 1)
            #expect(retained[0].retained)
            #expect(retained[0].payload == String(decoding: events[60].json, as: UTF8.self))
            #expect(retained[0].payload.contains("\"isActive\":false"))
        }
    }

    @Test func brokerStoppedMidShareAndRestartedEverythingArrivesAfter() async throws {
        var broker = try await Mosquitto.start()
        // A persistent session (-c): what the broker takes while the subscriber is away waits for it.
        let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/events"], clientID: "test-sub")
        try await subscriber.waitUntilSubscribed()
        let logs = LogLines()
        let destination = try MQTTDestination(configuration: try testConfiguration(broker.url, device: "van"), log: logs.logger)
        let events = queuedShare(updates: 40)
        var resubscriber: MQTTSubscriber?
        let report = try await whileRunning(destination) {
            _ = try await deliver(Array(events.prefix(10)), to: destination)
            _ = try await subscriber.waitForMessages(count: 10)
            await broker.stop()  // SIGTERM: the broker saves its sessions (and closes the connections)
            await subscriber.stop()
            #expect(await eventually { if case .connected = destination.link { false } else { true } })
            let restOfShare = Array(events.dropFirst(10))
            let target = destination
            let rest = Task { @Sendable in try await deliver(restOfShare, to: target, within: .seconds(60)) }
            try await Task.sleep(for: .seconds(2))
            if case .connected = destination.link { Issue.record("connected while the broker is down") }
            broker = try await broker.restart()
            resubscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/events"], clientID: "test-sub")
            return try await rest.value
        }
        let after = try #require(resubscriber)
        let late = try await after.waitForMessages(count: events.count - 10, timeout: .seconds(30))
        await after.stop()
        await broker.remove()
        // Sent during the outage, the events waited for the connection: at most one failure, so a
        // runner's backoff does not grow with the outage's length.
        #expect(report.retries.count <= 1, "\(report.retries)")
        var seen = Set<Int>()
        let arrivals = (subscriber.messages + late).compactMap { seq(of: $0.payload) }.filter { seen.insert($0).inserted }
        #expect(arrivals == Array(1...events.count))
        #expect(logs.all.contains { $0.hasPrefix("mqtt: disconnected: connection lost; retrying in ") },
                "\(logs.all)")
        #expect(logs.all.last?.hasPrefix("mqtt: connected to") == true, "\(logs.all)")
    }

    /// The loop thread waits in libmosquitto for what it waits for (a packet, the keepalive), not
    /// for a timer: an idle connection wakes it for the keepalive's PINGREQ and PINGRESP only.
    @Test func anIdleConnectionsLoopThreadWakesOnlyForTheKeepaliveAndKeepsTheConnection() async throws {
        try await Mosquitto.with() { broker in
            var configuration = try testConfiguration(broker.url, device: "van")
            configuration.keepalive = .seconds(5)
            let before = LoopThreads.current()
            let destination = try MQTTDestination(configuration: configuration, log: .silent)
            let (wakeUps, link, attempts) = try await whileRunning(destination) {
                _ = try await deliver(queuedShare(updates: 1), to: destination)
                let thread = try #require(LoopThreads.current().subtracting(before).first)
                let start = try #require(LoopThreads.voluntarySwitches(thread))
                // Longer than the broker's 1.5 × keepalive: a client that sent nothing would be dropped.
                try await Task.sleep(for: .seconds(8))
                let end = try #require(LoopThreads.voluntarySwitches(thread))
                return (end - start, destination.link, destination.connection.attemptCount)
            }
            // One PINGREQ (at 5 s) and its PINGRESP; a loop that looked every second woke 8 times or more.
            #expect(wakeUps <= 5, "the loop thread woke \(wakeUps) times in 8 s")
            #expect(link == .connected)
            #expect(attempts == 1, "the keepalive kept the first connection")
        }
    }

    /// Between updates, Home Assistant's "Minutes left" goes down when its minute passes: the loop
    /// thread waits for that moment.
    @Test func homeAssistantMinutesLeftGoDownBetweenUpdatesWhenTheMinutePasses() async throws {
        try await Mosquitto.with() { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/share"])
            try await subscriber.waitUntilSubscribed()
            let destination = try MQTTDestination(configuration: try testConfiguration(broker.url, format: .homeassistant,
                                                                                       device: "van"), log: .silent)
            // 61 s left at the fix: 2 minutes said; 1 is due a second later, with no update sent.
            let update = queuedShare(updates: 1, shareLength: .seconds(61))[0]
            let said = try await whileRunning(destination) {
                _ = try await deliver([update], to: destination)
                return try await subscriber.waitForMessages(count: 2, timeout: .seconds(5))
            }
            #expect(said.map { $0.payload.hasPrefix(#"{"sharing":"ON","minutes_left":2"#) } == [true, false])
            #expect(said.last?.payload.hasPrefix(#"{"sharing":"ON","minutes_left":1"#) == true, "\(said.map(\.payload))")
        }
    }

    @Test func tlsWithTheRightCAConnects() async throws {
        let directory = try Paths.temporaryDirectory("mqtt-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        try await Mosquitto.with(.init(tls: certificates)) { broker in
            var configuration = try testConfiguration(try #require(broker.tlsURL), device: "van")
            configuration.caFile = certificates.caCertificate.path
            let destination = try MQTTDestination(configuration: configuration, log: .silent)
            let report = try await whileRunning(destination) {
                try await deliver(queuedShare(updates: 3), to: destination)
            }
            #expect(report.retries.isEmpty)
            #expect(destination.connection.acknowledgedCount == 5)
        }
    }

    /// issue 23: `mqtts://` to a plain MQTT port was reported as "bad certificate"; the peer does
    /// not speak TLS at all, and the reason says so (and what to change).
    @Test func tlsToAPlainMQTTPortSaysThePeerDoesNotSpeakTLS() async throws {
        let directory = try Paths.temporaryDirectory("mqtt-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        try await Mosquitto.with(.init()) { broker in
            var configuration = try testConfiguration("mqtts://127.0.0.1:\(broker.port)", device: "van")
            configuration.caFile = certificates.caCertificate.path
            let logs = LogLines()
            let destination = try MQTTDestination(configuration: configuration, log: logs.logger)
            let link = try await whileRunning(destination) {
                _ = await eventually { if case .refused = destination.link { true } else { false } }
                return destination.link
            }
            guard case .refused(let reason)? = link else {
                Issue.record("link: \(String(describing: link))")
                return
            }
            #expect(reason.hasPrefix("not TLS: mqtts://127.0.0.1:\(broker.port) does not speak TLS"), "\(reason)")
            #expect(!reason.contains("bad certificate"), "\(reason)")
            #expect(reason.contains("mqtt://"), "says what to change: \(reason)")
            #expect(logs.all.filter { $0.contains("does not speak TLS") }.count == 1, "\(logs.all)")
        }
    }

    @Test func tlsWithACertificateForAnotherHostIsRefused() async throws {
        let directory = try Paths.temporaryDirectory("mqtt-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        try await Mosquitto.with(.init(tls: certificates, wrongHostCertificate: true)) { broker in
            var configuration = try testConfiguration(try #require(broker.tlsURL), device: "van")
            configuration.caFile = certificates.caCertificate.path
            let destination = try MQTTDestination(configuration: configuration, log: .silent)
            let link = try await whileRunning(destination) {
                _ = await eventually { if case .refused = destination.link { true } else { false } }
                return destination.link
            }
            guard case .refused(let reason)? = link else {
                Issue.record("link: \(String(describing: link))")
                return
            }
            #expect(reason.hasPrefix("bad certificate") && reason.contains("host name verification failed"), "\(reason)")
        }
    }

    @Test func tlsWithTheWrongCAIsRefusedWithAClearReasonAndRetriedWithBackoff() async throws {
        let directory = try Paths.temporaryDirectory("mqtt-tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificates = try await TestCertificates.make(in: directory)
        try await Mosquitto.with(.init(tls: certificates)) { broker in
            var configuration = try testConfiguration(try #require(broker.tlsURL), device: "van")
            configuration.caFile = certificates.otherCACertificate.path
            configuration.reconnect = RetryPolicy(base: .milliseconds(200), cap: .seconds(1))
            let logs = LogLines()
            let destination = try MQTTDestination(configuration: configuration, log: logs.logger)
            let (result, attempts, link) = try await whileRunning(destination) {
                let receipt = destination.send(queuedShare(updates: 1)[0])
                let result = await outcome(of: receipt, before: ContinuousClock.now + .seconds(10))
                try await Task.sleep(for: .seconds(3))
                return (result, destination.connection.attemptCount, destination.link)
            }
            guard case .retry(let reason, let after)? = result else {
                Issue.record("expected retry, got \(String(describing: result))")
                return
            }
            #expect(reason.contains("bad certificate"))
            #expect(reason.contains("certificate verify failed"))
            #expect(after == nil)  // the runner's own backoff
            guard case .refused(let linkReason)? = link else {
                Issue.record("link: \(String(describing: link))")
                return
            }
            #expect(linkReason.hasPrefix("bad certificate"))
            // Retried, with backoff: 0.1-0.2 s, then doubling to 1 s, over 3 s: a handful, not dozens.
            #expect((3...14).contains(attempts), "attempts: \(attempts)")
            // One clear line, not one per attempt.
            let refusals = logs.all.filter { $0.contains("connection refused: bad certificate") }
            #expect(refusals.count == 1, "\(logs.all)")
        }
    }

    @Test(arguments: [MQTTProtocolVersion.v5, .v311])
    func wrongPasswordIsRefusedAsNotAuthorizedAndTheRightOneConnects(_ version: MQTTProtocolVersion) async throws {
        try await Mosquitto.with(.init(users: ["van": "correct horse battery"])) { broker in
            var configuration = try testConfiguration(broker.url, device: "van")
            configuration.protocolVersion = version
            configuration.user = "van"
            configuration.password = "wrong password"
            let logs = LogLines()
            let refused = try MQTTDestination(configuration: configuration, log: logs.logger)
            let link = try await whileRunning(refused) {
                _ = await eventually { if case .refused = refused.link { true } else { false } }
                return refused.link
            }
            guard case .refused(let reason)? = link else {
                Issue.record("link: \(String(describing: link))")
                return
            }
            #expect(reason.hasPrefix("not authorized"))
            // mosquitto answers a bad password with "not authorized" (135 / 5), others with 134 / 4.
        #expect(reason.contains(version == .v5 ? "(MQTT 5 reason code 13" : "(MQTT 3.1.1 CONNACK return code "))
            #expect(!logs.all.joined().contains("wrong password"))
            configuration.password = "correct horse battery"
            let accepted = try MQTTDestination(configuration: configuration, log: .silent)
            let report = try await whileRunning(accepted) {
                try await deliver(queuedShare(updates: 2), to: accepted)
            }
            #expect(report.retries.isEmpty)
        }
    }

    @Test func retainedLivePositionExpiresWhenTheShareEnds() async throws {
        try await Mosquitto.with() { broker in
            let destination = try MQTTDestination(configuration: try testConfiguration(broker.url, device: "van"), log: .silent)
            // A share with 2 s left at its only fix; no final update is sent (the device went away).
            let event = queuedShare(updates: 1, shareLength: .seconds(2))[0]
            _ = try await whileRunning(destination) { try await deliver([event], to: destination) }
            let before = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/location"])
            let first = try await before.waitForMessages(count: 1)
            await before.stop()
            #expect(first[0].retained && first[0].expirySeconds.map { $0 <= 2 } == true)
            try await Task.sleep(for: .seconds(3))
            let after = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/location"])
            try await after.waitUntilSubscribed()
            try await Task.sleep(for: .milliseconds(500))
            await after.stop()
            #expect(after.messages.isEmpty)
        }
    }

    @Test func owntracksLocationIsRetainedAndTheShareEndClearsIt() async throws {
        try await Mosquitto.with() { broker in
            var configuration = try testConfiguration(broker.url, format: .owntracks, device: "van")
            configuration.user = "jane"
            let destination = try MQTTDestination(configuration: configuration, log: .silent)
            let events = queuedShare(updates: 2)
            _ = try await whileRunning(destination) { try await deliver(Array(events.prefix(2)), to: destination) }
            let during = try await MQTTSubscriber(port: broker.port, topics: ["owntracks/jane/van"])
            let retained = try await during.waitForMessages(count: 1)
            await during.stop()
            #expect(retained[0].retained && retained[0].payload.hasPrefix("{\"_type\":\"location\""))
            _ = try await whileRunning(destination) { try await deliver(Array(events.dropFirst(2)), to: destination) }
            let after = try await MQTTSubscriber(port: broker.port, topics: ["owntracks/jane/van"])
            try await after.waitUntilSubscribed()
            try await Task.sleep(for: .milliseconds(500))
            await after.stop()
            #expect(after.messages.isEmpty)
        }
    }

    @Test func homeAssistantEntitiesAreDiscoveredTheTrackerOnlineWhileSharingAndAllOfflineAfterACleanStop() async throws {
        try await Mosquitto.with() { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["homeassistant/#", "livelocd/van/#"])
            try await subscriber.waitUntilSubscribed()
            let destination = try MQTTDestination(configuration: try testConfiguration(broker.url, format: .homeassistant,
                                                                                       device: "van"), log: .silent)
            _ = try await whileRunning(destination) {
                try await deliver(Array(queuedShare(updates: 3).prefix(3)), to: destination)
            }
            let messages = try await subscriber.waitForMessages(count: 20)
            #expect(messages.map(\.topic) == [
                "homeassistant/device_tracker/livelocd_van/config", "homeassistant/binary_sensor/livelocd_van_sharing/config",
                "homeassistant/sensor/livelocd_van_minutes_left/config", "homeassistant/sensor/livelocd_van_battery/config",
                "homeassistant/button/livelocd_van_share_15m/config", "homeassistant/button/livelocd_van_share_1h/config",
                "homeassistant/button/livelocd_van_share_8h/config", "homeassistant/button/livelocd_van_stop/config",
                "homeassistant/button/livelocd_van_extend_15m/config", "homeassistant/button/livelocd_van_extend_1h/config",
                "livelocd/van/connection",
                "livelocd/van/attributes", "livelocd/van/share", "livelocd/van/availability",
                "livelocd/van/attributes", "livelocd/van/share",
                "livelocd/van/attributes", "livelocd/van/share", "livelocd/van/availability",
                "livelocd/van/connection",
            ])
            // No battery, no commands: those entities' configs are removed (empty), the others announced.
            let announced = messages[0..<3].allSatisfy { $0.payload.hasPrefix("{") }
            let removed = messages[3..<10].allSatisfy { $0.payload.isEmpty }
            #expect(announced && removed)
            #expect(messages[10].payload == "online")
            #expect(messages[12].payload.hasPrefix(#"{"sharing":"ON","minutes_left":"#))
            #expect(messages[13].payload == "online")
            #expect(messages[17].payload.hasPrefix(#"{"sharing":"ON","minutes_left":"#))
            // Said before the clean disconnect: the tracker and then every entity unavailable.
            #expect(messages[18].payload == "offline" && messages[19].payload == "offline")
            // What a later subscriber (Home Assistant starting) gets: the retained messages.
            let late = try await MQTTSubscriber(port: broker.port, topics: ["homeassistant/#", "livelocd/van/#"])
            let retained = try await late.waitForMessages(count: 7)
            #expect(retained.allSatisfy { $0.retained })
            #expect(Set(retained.map(\.topic)) == ["homeassistant/device_tracker/livelocd_van/config",
                                                   "homeassistant/binary_sensor/livelocd_van_sharing/config",
                                                   "homeassistant/sensor/livelocd_van_minutes_left/config",
                                                   "livelocd/van/connection", "livelocd/van/availability", "livelocd/van/attributes",
                                                   "livelocd/van/share"])
        }
    }
}

/// The MQTT connections' loop threads in this process, seen through /proc.
enum LoopThreads {
    /// The thread ids named `livelocd-mqtt`.
    static func current() -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return Set(tasks.filter { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) == "livelocd-mqtt"
        })
    }

    /// How many times the thread gave up the processor to wait (its wake-ups), nil once it ended.
    static func voluntarySwitches(_ thread: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/task/\(thread)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
        return line.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }
}
