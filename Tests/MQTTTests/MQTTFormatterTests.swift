import Delivery
import JSONCoding
import LiveLocation
import Settings
@testable import MQTT
import Testing

/// Each format's messages checked field by field against its contract: docs/formats.md's "MQTT wire formats",
/// the OwnTracks booklet (https://owntracks.org/booklet/tech/json/, `_type=location`) and Home
/// Assistant's MQTT device tracker (home-assistant.io source/_integrations/device_tracker.mqtt.markdown).
@Suite("MQTT wire formats")
struct MQTTFormatterTests {
    static let shareID = ShareID(rawValue: "0b6c1f1e-3d0a-4c55-9a51-5b7f2f0e8a11")
    static let start = Timestamp(iso8601: "2026-03-14T08:00:00.000Z")!
    static let expiry = Timestamp(iso8601: "2026-03-14T08:15:00.000Z")!

    static func update(seq: Int = 1, at seconds: Int64 = 1, accuracy: Double? = 2.1, altitude: Double? = 519.4,
                       speed: Double? = 12.5, course: Double? = 27.8, battery: BatteryReading? = nil) -> QueuedEvent {
        let location = LiveLocation(latitude: 48.1405925, longitude: 11.558804667, lastUpdateAt: start + .seconds(seconds),
                                    startedAt: start, expiresAt: expiry, isActive: true, accuracyMeters: accuracy,
                                    altitudeMeters: altitude, speedMetersPerSecond: speed, courseDegreesTrue: course,
                                    battery: battery)
        return queued(.updated(shareID: shareID, seq: seq, location: location))
    }

    static func finalUpdate(seq: Int = 2, endedAt seconds: Int64 = 300) -> QueuedEvent {
        let location = LiveLocation(latitude: 48.15, longitude: 11.56, lastUpdateAt: start + .seconds(seconds - 1),
                                    startedAt: start, expiresAt: start + .seconds(seconds), isActive: false,
                                    accuracyMeters: 3)
        return queued(.updated(shareID: shareID, seq: seq, location: location))
    }

    static func ended(seq: Int = 3) -> QueuedEvent {
        queued(.ended(shareID: shareID, seq: seq, reason: .stopped))
    }

    static func queued(_ event: ShareEvent) -> QueuedEvent {
        QueuedEvent(position: Int64(event.seq), event: event, json: Array(event.jsonLineBytes.dropLast()))
    }

    static func formatter(_ format: MQTTFormat, protocolVersion: MQTTProtocolVersion = .v5,
                          user: String? = nil, device: String = "van-7", commands: Bool = false,
                          battery: Bool = false) -> MQTTFormatter {
        var configuration = MQTTConfiguration(broker: MQTTBrokerURL(host: "127.0.0.1", port: 1883, usesTLS: false),
                                              device: device)
        configuration.format = format
        configuration.protocolVersion = protocolVersion
        configuration.user = user
        configuration.commands = commands
        configuration.reportsBattery = battery
        return MQTTFormatter(configuration: configuration)
    }

    static func object(_ payload: [UInt8]) throws -> [String: JSONValue] {
        guard case .object(let members) = try JSONValue(parsing: payload) else {
            throw JSONSyntaxError.unexpectedEnd
        }
        return members
    }

    // MARK: livelocd

    @Test func livelocdUpdateIsTheStdoutJSONOnEventsAndRetainedOnLocationWithTheTimeLeftAsExpiry() {
        var state = MQTTPublishState()
        let event = Self.update(at: 60)
        let messages = Self.formatter(.livelocd).messages(for: event, state: &state)
        #expect(messages == [
            MQTTMessage(topic: "livelocd/van-7/events", payload: event.json, qos: .atLeastOnce, retain: false),
            MQTTMessage(topic: "livelocd/van-7/location", payload: event.json, qos: .atLeastOnce, retain: true,
                        messageExpirySeconds: 840),
        ])
        #expect(messages[0].payloadText.hasPrefix("{\"event\":\"updated\",\"shareId\":\"0b6c1f1e-"))
        #expect(state.shareActive == true)
    }

    @Test func livelocdExpiryRoundsUpAndIsAtLeastOneSecond() {
        let formatter = Self.formatter(.livelocd)
        func location(leftMilliseconds: Int64) -> LiveLocation {
            LiveLocation(latitude: 0, longitude: 0, lastUpdateAt: Self.expiry - .milliseconds(leftMilliseconds),
                         startedAt: Self.start, expiresAt: Self.expiry, isActive: true)
        }
        #expect(formatter.liveExpirySeconds(location(leftMilliseconds: 899_001)) == 900)
        #expect(formatter.liveExpirySeconds(location(leftMilliseconds: 1)) == 1)
        #expect(formatter.liveExpirySeconds(location(leftMilliseconds: 0)) == 1)
    }

    @Test func livelocdFinalUpdateReplacesTheRetainedLocationWithoutExpiryAndEndedGoesToEventsOnly() {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.livelocd)
        let final = Self.finalUpdate()
        #expect(formatter.messages(for: final, state: &state) == [
            MQTTMessage(topic: "livelocd/van-7/events", payload: final.json, qos: .atLeastOnce, retain: false),
            MQTTMessage(topic: "livelocd/van-7/location", payload: final.json, qos: .atLeastOnce, retain: true),
        ])
        let ended = Self.ended()
        #expect(formatter.messages(for: ended, state: &state) == [
            MQTTMessage(topic: "livelocd/van-7/events", payload: ended.json, qos: .atLeastOnce, retain: false),
        ])
        #expect(state.shareActive == false)
    }

    @Test func mqtt311HasNoExpiryAndTheTopicPrefixAndQoSAreConfigurable() {
        var configuration = MQTTConfiguration(broker: MQTTBrokerURL(host: "h", port: 1, usesTLS: false), device: "d")
        configuration.protocolVersion = .v311
        configuration.topicPrefix = "fleet/eu"
        configuration.qos = .exactlyOnce
        var state = MQTTPublishState()
        let messages = MQTTFormatter(configuration: configuration).messages(for: Self.update(), state: &state)
        #expect(messages.map(\.topic) == ["fleet/eu/d/events", "fleet/eu/d/location"])
        #expect(messages.allSatisfy { $0.messageExpirySeconds == nil && $0.qos == .exactlyOnce })
    }

    @Test func onlyHomeAssistantHasConnectMessagesAndLivelocdHasNoWill() {
        for format in [MQTTFormat.livelocd, .owntracks] {
            var state = MQTTPublishState(shareActive: true)
            #expect(Self.formatter(format).connectMessages(state: &state).isEmpty)
            #expect(Self.formatter(format).disconnectMessages(state: &state).isEmpty)
        }
        #expect(Self.formatter(.livelocd).will(firstConnectedAt: Self.start) == nil)
    }

    @Test func owntracksWillIsTheAppsLWTWithTheFirstConnectionTimeNotRetained() throws {
        let will = try #require(Self.formatter(.owntracks, user: "jane").will(firstConnectedAt: Self.start + .milliseconds(1_999)))
        #expect(will.topic == "owntracks/jane/van-7")
        #expect(!will.retain)  // the retained message there is the location, which the will must not replace
        #expect(will.qos == .atLeastOnce)
        #expect(will.payloadText == #"{"_type":"lwt","tst":\#(Self.start.millisecondsSince1970 / 1000 + 1)}"#)
    }

    // MARK: owntracks

    @Test func owntracksLocationHasTheBookletsFieldsAndUnits() throws {
        var state = MQTTPublishState()
        let messages = Self.formatter(.owntracks, user: "jane").messages(for: Self.update(at: 61), state: &state)
        try #require(messages.count == 1)
        let message = messages[0]
        #expect(message.topic == "owntracks/jane/van-7")
        #expect(message.qos == .atLeastOnce)
        #expect(message.retain)
        #expect(message.messageExpirySeconds == 839)
        let fields = try Self.object(message.payload)
        #expect(fields["_type"] == .string("location"))
        #expect(fields["lat"] == .number("48.1405925"))
        #expect(fields["lon"] == .number("11.5588047"))
        #expect(fields["tst"] == .number(String(Self.start.millisecondsSince1970 / 1000 + 61)))  // the fix's time
        #expect(fields["acc"] == .number("2"))            // integer metres
        #expect(fields["alt"] == .number("519"))          // integer metres
        #expect(fields["vel"] == .number("45"))           // 12.5 m/s = 45 km/h
        #expect(fields["cog"] == .number("28"))           // integer degrees
        #expect(fields["tid"] == .string("-7"))         // the device name's last two characters
        #expect(fields["created_at"] == nil)            // made when the fix was taken: only tst
        #expect(fields["batt"] == nil && fields["bs"] == nil)  // no battery
        #expect(fields.count == 9)
        // Integers are written without a fraction, as the booklet's integer fields are.
        #expect(message.payloadText.contains("\"tst\":1773475261,"))
    }

    @Test func owntracksAccuracyIsAtLeastOneMetreAndPresentWhenUnknownAndZeroFieldsAreLeftOut() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.owntracks)
        let precise = try Self.object(formatter.messages(for: Self.update(accuracy: 0.2, altitude: 0, speed: 0, course: 0),
                                                         state: &state)[0].payload)
        #expect(precise["acc"] == .number("1"))
        #expect(precise["alt"] == nil && precise["vel"] == nil && precise["cog"] == nil)
        let unknown = try Self.object(formatter.messages(for: Self.update(accuracy: nil, altitude: nil, speed: nil, course: nil),
                                                         state: &state)[0].payload)
        #expect(unknown["acc"] == .number(String(MQTTFormatter.owntracksUnknownAccuracyMeters)))
        #expect(unknown["alt"] == nil && unknown["vel"] == nil && unknown["cog"] == nil)
        let north = try Self.object(formatter.messages(for: Self.update(course: 359.7), state: &state)[0].payload)
        #expect(north["cog"] == nil)  // 360 is 0, which the booklet leaves out
    }

    @Test func owntracksBattIsThePercentAndBsTheBookletsStatusNumber() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.owntracks)
        let expected: [(BatteryReading.Status, String)] = [(.unknown, "0"), (.discharging, "1"), (.charging, "2"), (.full, "3")]
        for (status, bs) in expected {
            let event = Self.update(battery: BatteryReading(level: 87, status: status))
            let fields = try Self.object(formatter.messages(for: event, state: &state)[0].payload)
            #expect(fields["batt"] == .number("87"))
            #expect(fields["bs"] == .number(bs), "\(status)")
        }
    }

    @Test func owntracksUserDefaultsToLivelocdAndIsMadeATopicLevel() {
        #expect(Self.formatter(.owntracks).topics.owntracks == "owntracks/livelocd/van-7")
        #expect(Self.formatter(.owntracks, user: "jane@example.org").topics.owntracks == "owntracks/jane_example.org/van-7")
        #expect(Self.formatter(.owntracks, device: "x").owntracksTrackerID == "xx")
    }

    @Test func owntracksShareEndIsTheFinalLocationKeptThenAnEmptyRetainedMessageThatDeletesIt() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.owntracks)
        let final = formatter.messages(for: Self.finalUpdate(endedAt: 300), state: &state)
        try #require(final.count == 1)
        #expect(final[0].retain && final[0].messageExpirySeconds == nil)
        let fields = try Self.object(final[0].payload)
        #expect(fields["tst"] == .number(String(Self.start.millisecondsSince1970 / 1000 + 299)))
        #expect(fields["created_at"] == .number(String(Self.start.millisecondsSince1970 / 1000 + 300)))  // when it ended
        #expect(formatter.messages(for: Self.ended(), state: &state) == [
            MQTTMessage(topic: "owntracks/livelocd/van-7", payload: [], qos: .atLeastOnce, retain: true),
        ])
    }

    // MARK: homeassistant

    static let connection = HomeAssistantAvailabilityTopic("livelocd/van-7/connection")
    static let shareAvailability = HomeAssistantAvailabilityTopic("livelocd/van-7/availability")

    @Test func homeAssistantConnectionStartsWithTheRetainedDiscoveryConfigsThenOnline() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.homeassistant)
        let messages = formatter.connectMessages(state: &state)
        #expect(messages.map(\.topic) == [
            "homeassistant/device_tracker/livelocd_van-7/config",
            "homeassistant/binary_sensor/livelocd_van-7_sharing/config",
            "homeassistant/sensor/livelocd_van-7_minutes_left/config",
            "homeassistant/sensor/livelocd_van-7_battery/config",
            "homeassistant/button/livelocd_van-7_share_15m/config",
            "homeassistant/button/livelocd_van-7_share_1h/config",
            "homeassistant/button/livelocd_van-7_share_8h/config",
            "homeassistant/button/livelocd_van-7_stop/config",
            "homeassistant/button/livelocd_van-7_extend_15m/config",
            "homeassistant/button/livelocd_van-7_extend_1h/config",
            "livelocd/van-7/connection",
        ])
        #expect(messages.allSatisfy { $0.retain && $0.qos == .atLeastOnce && $0.messageExpirySeconds == nil })
        // Without commands and a battery, their entities' configs are empty: removed if announced before.
        #expect(messages[3...9].allSatisfy { $0.payload.isEmpty })
        #expect(messages[10].payloadText == "online")
        #expect(formatter.will(firstConnectedAt: Self.start) == MQTTMessage(topic: "livelocd/van-7/connection", payload: Array("offline".utf8),
                                                                           qos: .atLeastOnce, retain: true))
    }

    /// Home Assistant's discovery prefix is an option of its MQTT integration: `mqtt.discovery_prefix`
    /// moves every discovery config there, and nothing else (livelocd's topics keep `mqtt.topic_prefix`).
    @Test func theDiscoveryConfigsGoUnderTheConfiguredDiscoveryPrefixAndOnlyThey() throws {
        var configuration = MQTTConfiguration(broker: MQTTBrokerURL(host: "127.0.0.1", port: 1883, usesTLS: false), device: "van-7")
        configuration.format = .homeassistant
        configuration.commands = true
        configuration.discoveryPrefix = "ha/discovery"
        var state = MQTTPublishState()
        let topics = MQTTFormatter(configuration: configuration).connectMessages(state: &state).map(\.topic)
        #expect(topics.first == "ha/discovery/device_tracker/livelocd_van-7/config")
        #expect(topics.dropLast().allSatisfy { $0.hasPrefix("ha/discovery/") && $0.hasSuffix("/config") }, "\(topics)")
        #expect(topics.last == "livelocd/van-7/connection")
        let values = try #require(try MQTTSettings.configuration(from: ["mqtt.url": "mqtt://127.0.0.1",
                                                                              "mqtt.discovery_prefix": "ha/discovery"],
                                                                       credentialsDirectory: nil))
        #expect(values.discoveryPrefix == "ha/discovery")
        #expect(throws: SettingError.self) {
            try MQTTSettings.configuration(from: ["mqtt.url": "mqtt://127.0.0.1", "mqtt.discovery_prefix": "ha/#"], credentialsDirectory: nil)
        }
    }

    /// Home Assistant 2026: `default_entity_id` instead of `object_id`, `name: null` for the main
    /// entity, `origin` (home-assistant/core homeassistant/components/mqtt/schemas.py).
    @Test func homeAssistantTrackerConfigIsTheDevicesMainEntityWithADefaultEntityIDAndAnOrigin() throws {
        let config = try Self.object(try #require(Self.formatter(.homeassistant).homeAssistantDiscoveryConfig(.tracker)))
        #expect(config["name"] == .null)
        #expect(config["default_entity_id"] == .string("device_tracker.livelocd_van-7"))
        #expect(config["object_id"] == nil)
        #expect(config["unique_id"] == .string("livelocd_van-7"))
        #expect(config["json_attributes_topic"] == .string("livelocd/van-7/attributes"))
        #expect(config["availability"] == .array([Self.connection.value, Self.shareAvailability.value]))
        #expect(config["availability_mode"] == .string("all"))
        #expect(config["availability_topic"] == nil)
        #expect(config["source_type"] == .string("gps"))
        #expect(config["qos"] == .number("1"))
        #expect(config["origin"] == .object(["name": .string("livelocd")]))
        #expect(config["device"] == .object(["identifiers": .array([.string("livelocd_van-7")]), "name": .string("van-7"),
                                             "manufacturer": .string("livelocd"), "model": .string("livelocd")]))
        #expect(config.count == 10)
    }

    @Test func homeAssistantStateEntitiesReadTheShareTopicAndAreAvailableWhileConnected() throws {
        let formatter = Self.formatter(.homeassistant, battery: true)
        let sharing = try Self.object(try #require(formatter.homeAssistantDiscoveryConfig(.sharing)))
        #expect(sharing["name"] == .string("Sharing"))
        #expect(sharing["default_entity_id"] == .string("binary_sensor.livelocd_van-7_sharing"))
        #expect(sharing["state_topic"] == .string("livelocd/van-7/share"))
        #expect(sharing["value_template"] == .string("{{ value_json.sharing }}"))
        #expect(sharing["availability"] == .array([Self.connection.value]) && sharing["availability_mode"] == nil)
        let minutes = try Self.object(try #require(formatter.homeAssistantDiscoveryConfig(.minutesLeft)))
        #expect(minutes["name"] == .string("Minutes left"))
        #expect(minutes["value_template"] == .string("{{ value_json.minutes_left }}"))
        #expect(minutes["unit_of_measurement"] == .string("min") && minutes["device_class"] == .string("duration"))
        let battery = try Self.object(try #require(formatter.homeAssistantDiscoveryConfig(.battery)))
        #expect(battery["default_entity_id"] == .string("sensor.livelocd_van-7_battery"))
        #expect(battery["device_class"] == .string("battery") && battery["unit_of_measurement"] == .string("%"))
        #expect(battery["value_template"] == .string("{{ value_json.battery_level }}"))
        #expect(Self.formatter(.homeassistant).homeAssistantDiscoveryConfig(.battery) == nil)
    }

    @Test func homeAssistantButtonsPublishTheCommandsOnTheCommandTopicOnlyWithCommands() throws {
        #expect(HomeAssistantEntity.buttons.allSatisfy { Self.formatter(.homeassistant).homeAssistantDiscoveryConfig($0) == nil })
        let formatter = Self.formatter(.homeassistant, commands: true)
        var seen: [String: String] = [:]
        for button in HomeAssistantEntity.buttons {
            let config = try Self.object(try #require(formatter.homeAssistantDiscoveryConfig(button)))
            #expect(config["command_topic"] == .string("livelocd/van-7/command"))
            #expect(config["availability"] == .array([Self.connection.value]))
            #expect(config["message_expiry_interval"] == .number("60"))
            guard case .string(let name) = config["name"], case .string(let press) = config["payload_press"] else {
                Issue.record("\(button): no name or payload_press"); continue
            }
            seen[name] = press
        }
        #expect(seen == ["Share 15 min": #"{"op":"start","duration":"15m"}"#, "Share 1 h": #"{"op":"start","duration":"1h"}"#,
                         "Share 8 h": #"{"op":"start","duration":"8h"}"#, "Stop sharing": #"{"op":"stop"}"#,
                         "+15 min": #"{"op":"extend","duration":"15m"}"#, "+1 h": #"{"op":"extend","duration":"1h"}"#])
    }

    @Test func homeAssistantUpdateIsRetainedAttributesThenOnlineOncePerConnection() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.homeassistant)
        _ = formatter.connectMessages(state: &state)
        let first = formatter.messages(for: Self.update(at: 60, course: 359.99, battery: BatteryReading(level: 87, status: .charging)),
                                       state: &state)
        try #require(first.count == 3)
        #expect(first[0].topic == "livelocd/van-7/attributes")
        #expect(first[0].retain && first[0].messageExpirySeconds == 840)
        let attributes = try Self.object(first[0].payload)
        #expect(attributes["latitude"] == .number("48.1405925"))
        #expect(attributes["longitude"] == .number("11.5588047"))
        #expect(attributes["gps_accuracy"] == .number("2.1"))
        #expect(attributes["share_id"] == .string(Self.shareID.rawValue))
        #expect(attributes["expires_at"] == .string("2026-03-14T08:15:00.000Z"))
        #expect(attributes["speed"] == .number("12.5"))
        #expect(attributes["course"] == .number("0"))  // 359.99 to one decimal is 360.0, which is 0
        #expect(attributes["altitude"] == .number("519.4"))
        #expect(attributes["battery_level"] == .number("87"))
        #expect(attributes["battery_charging"] == .bool(true))
        #expect(attributes.count == 10)
        #expect(first[1] == MQTTMessage(topic: "livelocd/van-7/share", payload: Array(#"{"sharing":"ON","minutes_left":14,"battery_level":87}"#.utf8),
                                        qos: .atLeastOnce, retain: true))  // 840 s left: 14 min
        #expect(first[2] == MQTTMessage(topic: "livelocd/van-7/availability", payload: Array("online".utf8),
                                        qos: .atLeastOnce, retain: true))
        // Already online on this connection: attributes only.
        let second = formatter.messages(for: Self.update(seq: 2, at: 61), state: &state)
        #expect(second.map(\.topic) == ["livelocd/van-7/attributes", "livelocd/van-7/share"])
        #expect(second[1].payloadText == #"{"sharing":"ON","minutes_left":14}"#)  // 839 s: rounded up
        // A new connection (after the will said offline): configs, connection online, and the tracker online again at once.
        let reconnect = formatter.connectMessages(state: &state)
        #expect(reconnect.suffix(2).map(\.topic) == ["livelocd/van-7/connection", "livelocd/van-7/availability"])
        #expect(reconnect.suffix(2).allSatisfy { $0.payloadText == "online" })
    }

    @Test func homeAssistantShareEndIsFinalAttributesThenOfflineAndUnknownValuesAreLeftOut() throws {
        var state = MQTTPublishState(shareActive: true, announcedAvailability: true)
        let formatter = Self.formatter(.homeassistant)
        let final = formatter.messages(for: Self.finalUpdate(endedAt: 300), state: &state)
        try #require(final.count == 3)
        #expect(final[0].messageExpirySeconds == nil && final[0].retain)
        let attributes = try Self.object(final[0].payload)
        #expect(attributes["expires_at"] == .string("2026-03-14T08:05:00.000Z"))
        #expect(attributes["speed"] == nil && attributes["course"] == nil && attributes["altitude"] == nil)
        #expect(final[1].payloadText == #"{"sharing":"OFF","minutes_left":0}"# && final[1].retain)
        #expect(final[2].payloadText == "offline" && final[2].retain)
        // `ended` after the final update said OFF and offline: nothing more.
        #expect(formatter.messages(for: Self.ended(), state: &state).isEmpty)
        // `ended` on a new connection: offline once more.
        _ = formatter.connectMessages(state: &state)
        #expect(formatter.messages(for: Self.ended(), state: &state).map(\.payloadText) == ["offline"])
        // A share that ended without any update (no fix): its state says OFF with `ended`.
        var fresh = MQTTPublishState(shareActive: true, announcedAvailability: true)
        #expect(formatter.messages(for: Self.ended(), state: &fresh).map(\.payloadText) == [#"{"sharing":"OFF","minutes_left":0}"#, "offline"])
        // A clean disconnect says the connection is offline; the tracker's offline was said.
        #expect(formatter.disconnectMessages(state: &state).map(\.topic) == ["livelocd/van-7/connection"])
    }

    @Test func homeAssistantMinutesLeftCountDownBetweenUpdatesOncePerMinuteAndStopWithTheShare() {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.homeassistant)
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(600), state: &state) == nil)  // no share
        // 840 s left at the fix: 14 min said.
        _ = formatter.messages(for: Self.update(at: 60, battery: BatteryReading(level: 50, status: .discharging)), state: &state)
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(59), state: &state) == nil)   // 781 s: still 14
        let thirteen = formatter.homeAssistantCountdown(elapsed: .seconds(60), state: &state)    // 780 s: 13
        #expect(thirteen == MQTTMessage(topic: "livelocd/van-7/share", payload: Array(#"{"sharing":"ON","minutes_left":13,"battery_level":50}"#.utf8),
                                        qos: .atLeastOnce, retain: true))
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(61), state: &state) == nil)   // said already
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(900), state: &state)?.payloadText
                == #"{"sharing":"ON","minutes_left":0,"battery_level":50}"#)
        // A new update starts again from its own time left; the share's end stops the count.
        _ = formatter.messages(for: Self.update(seq: 2, at: 120), state: &state)
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(1), state: &state) == nil)
        _ = formatter.messages(for: Self.finalUpdate(seq: 3), state: &state)
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(3000), state: &state) == nil)
        #expect(Self.formatter(.livelocd).homeAssistantCountdown(elapsed: .seconds(3000), state: &state) == nil)
    }

    @Test func homeAssistantsNextCountdownIsDueWhenTheMinutesLeftGoDown() {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.homeassistant)
        #expect(formatter.homeAssistantCountdownDue(state: state) == nil)  // no share
        // 840 s left at the fix: 14 min said, 13 due at 780 s left.
        _ = formatter.messages(for: Self.update(at: 60), state: &state)
        #expect(formatter.homeAssistantCountdownDue(state: state) == .seconds(60))
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(60), state: &state) != nil)
        #expect(formatter.homeAssistantCountdownDue(state: state) == .seconds(120))
        #expect(formatter.homeAssistantCountdown(elapsed: .seconds(900), state: &state) != nil)  // 0 said
        #expect(formatter.homeAssistantCountdownDue(state: state) == nil, "nothing left to count")
        _ = formatter.messages(for: Self.update(seq: 2, at: 120), state: &state)
        #expect(Self.formatter(.livelocd).homeAssistantCountdownDue(state: state) == nil)
    }

    @Test func homeAssistantCleanDisconnectWhileSharingSaysOfflineOnBothTopics() {
        var state = MQTTPublishState(shareActive: true, announcedAvailability: true)
        let messages = Self.formatter(.homeassistant).disconnectMessages(state: &state)
        #expect(messages.map(\.topic) == ["livelocd/van-7/availability", "livelocd/van-7/connection"])
        #expect(messages.allSatisfy { $0.payloadText == "offline" && $0.retain })
        #expect(state.announcedAvailability == false)
    }
}

/// One entry of a discovery config's `availability` list, as JSON.
struct HomeAssistantAvailabilityTopic {
    var value: JSONValue

    init(_ topic: String) {
        value = .object(["topic": .string(topic), "payload_available": .string("online"), "payload_not_available": .string("offline")])
    }
}
