import Foundation
import Testing
import TestSupport

/// Home Assistant's "+15 min" and "+1 h" buttons on a real daemon and a real mosquitto with the
/// ACL of docs/formats.md: a press extends the active share, its reply on the response topic, and
/// "Minutes left" jumps.
@Suite("Extending a share from Home Assistant", .serialized, .enabled(if: Mosquitto.isAvailable))
struct HomeAssistantExtendTests {
    static let users = ["livelocd": "daemon-secret-0", MQTTCommandTests.homeAssistant.user: MQTTCommandTests.homeAssistant.password,
                        MQTTCommandTests.guest.user: MQTTCommandTests.guest.password]

    /// `minutes_left` of a `livelocd/van/share` payload.
    static func minutesLeft(_ message: ReceivedMessage) -> Int? {
        jsonObject(message.payload)?["minutes_left"] as? Int
    }

    @Test func thePlusButtonsExtendTheActiveShareUnderTheACLAndMinutesLeftJumps() async throws {
        try await Mosquitto.with(Mosquitto.Options(users: Self.users, acl: MQTTCommandTests.acl)) { broker in
            let harness = try DaemonHarness()
            let passwordFile = try harness.secretFile("mqtt-password", containing: "daemon-secret-0\n")
            let home = try await MQTTSubscriber(port: broker.port, topics: ["homeassistant/#", "livelocd/#"], as: MQTTCommandTests.homeAssistant)
            try await home.waitUntilSubscribed()
            let daemon = try await harness.launch(log: MQTTCommandTests.drive, extra: [
                "--mqtt.url", broker.url, "--mqtt.format", "homeassistant", "--mqtt.device", "van", "--mqtt.commands", "true",
                "--mqtt.user", "livelocd", "--mqtt.password_file", passwordFile.path])
            let plus15 = try await home.waitForMessages(count: 1) { $0.topic == "homeassistant/button/livelocd_van_extend_15m/config" }
            let plus1h = try await home.waitForMessages(count: 1) { $0.topic == "homeassistant/button/livelocd_van_extend_1h/config" }
            let config15 = try #require(jsonObject(plus15[0].payload))
            let config1h = try #require(jsonObject(plus1h[0].payload))
            #expect(config15["name"] as? String == "+15 min" && config1h["name"] as? String == "+1 h")
            let commandTopic = try #require(config15["command_topic"] as? String)
            #expect(config1h["command_topic"] as? String == commandTopic)
            let press15 = try #require(config15["payload_press"] as? String)
            let press1h = try #require(config1h["payload_press"] as? String)
            try await home.waitForMessages(count: 1) { $0.topic == "livelocd/van/connection" && $0.payload == "online" }
            let answers = "livelocd/van/command/reply/ha"

            // No share yet: refused, in one reply on the response topic.
            try await MQTTPublisher.publish(port: broker.port, topic: commandTopic, payload: press1h, as: MQTTCommandTests.homeAssistant,
                                            responseTopic: answers, correlationData: "press-1")
            let none = try await home.waitForMessages(count: 1) { $0.topic == answers && $0.correlationData == "press-1" }
            #expect(jsonObject(none[0].payload)?["ok"] as? Bool == false)
            #expect((jsonObject(none[0].payload)?["error"] as? [String: Any])?["code"] as? String == "no-share", "\(none[0].payload)")

            let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let before = try await home.waitForMessages(count: 1) {
                $0.topic == "livelocd/van/share" && $0.payload.contains("\"ON\"") && (Self.minutesLeft($0) ?? 99) <= 15
            }
            let minutesBefore = try #require(Self.minutesLeft(before[0]))

            // A guest may not press: the broker refuses the publish, livelocd never sees it.
            let refused = try await MQTTPublisher.publish(port: broker.port, topic: commandTopic, payload: press15, as: MQTTCommandTests.guest)
            #expect((refused.stdout + refused.stderr).contains("RC:135"), "\(refused.stdout) \(refused.stderr)")

            // "+15 min" as Home Assistant presses it.
            let pressed = try await MQTTPublisher.publish(port: broker.port, topic: commandTopic, payload: press15,
                                                          as: MQTTCommandTests.homeAssistant, responseTopic: answers,
                                                          correlationData: "press-2")
            #expect(pressed.status == 0 && !pressed.stdout.contains("RC:135"), "\(pressed.stdout) \(pressed.stderr)")
            let reply = try await home.waitForMessages(count: 1) { $0.topic == answers && $0.correlationData == "press-2" }
            let answer = try #require(jsonObject(reply[0].payload))
            #expect(answer["ok"] as? Bool == true, "\(reply[0].payload)")
            let share = try #require(answer["share"] as? [String: Any])
            #expect(share["id"] as? String == id)
            #expect((share["secondsLeft"] as? Double ?? 0) > 900)
            #expect((answer["extended"] as? [String: Any])?["capped"] as? Bool == false)
            let newEnd = try #require(share["expiresAt"] as? String)

            // "Minutes left" jumps by the quarter hour; the tracker's attributes carry the same share.
            let after = try await home.waitForMessages(count: 1) {
                $0.topic == "livelocd/van/share" && (Self.minutesLeft($0) ?? 0) > 15
            }
            #expect((Self.minutesLeft(after[0]) ?? 0) >= minutesBefore + 14, "\(after[0].payload)")
            let extended = try await daemon.waitForLine {
                jsonObject($0)?["shareId"] as? String == id
                    && ((jsonObject($0)?["location"] as? [String: Any])?["expiresAt"] as? String) == newEnd
            }
            #expect(jsonObject(extended)?["event"] as? String == "updated")
            try await daemon.waitForLine(.stderr) { $0.contains("mqtt: command extend 15m taken") }

            // "+1 h" too.
            try await MQTTPublisher.publish(port: broker.port, topic: commandTopic, payload: press1h, as: MQTTCommandTests.homeAssistant,
                                            responseTopic: answers, correlationData: "press-3")
            let second = try await home.waitForMessages(count: 1) { $0.topic == answers && $0.correlationData == "press-3" }
            #expect(jsonObject(second[0].payload)?["ok"] as? Bool == true, "\(second[0].payload)")
            try await home.waitForMessages(count: 1) { $0.topic == "livelocd/van/share" && (Self.minutesLeft($0) ?? 0) > 75 }
            let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
            #expect(((status["share"] as? [String: Any])?["secondsLeft"] as? Double ?? 0) > 75 * 60)
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0)
        }
    }
}
