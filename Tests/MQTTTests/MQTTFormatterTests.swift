import Delivery
import JSONCoding
import LiveLocation
@testable import MQTT
import Testing

/// Each format's messages checked field by field against its contract: the README's "MQTT" section,
/// the OwnTracks booklet (https://owntracks.org/booklet/tech/json/, `_type=location`) and Home
/// Assistant's MQTT device tracker (home-assistant.io source/_integrations/device_tracker.mqtt.markdown).
@Suite("MQTT wire formats")
struct MQTTFormatterTests {
    static let shareID = ShareID(rawValue: "0b6c1f1e-3d0a-4c55-9a51-5b7f2f0e8a11")
    static let start = Timestamp(iso8601: "2026-03-14T08:00:00.000Z")!
    static let expiry = Timestamp(iso8601: "2026-03-14T08:15:00.000Z")!

    static func update(seq: Int = 1, at seconds: Int64 = 1, accuracy: Double? = 2.1, altitude: Double? = 519.4,
                       speed: Double? = 12.5, course: Double? = 27.8) -> QueuedEvent {
        let location = LiveLocation(latitude: 48.1405925, longitude: 11.558804667, lastUpdateAt: start + .seconds(seconds),
                                    startedAt: start, expiresAt: expiry, isActive: true, accuracyMeters: accuracy,
                                    altitudeMeters: altitude, speedMetersPerSecond: speed, courseDegreesTrue: course)
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
                          user: String? = nil, device: String = "van-7") -> MQTTFormatter {
        var configuration = MQTTConfiguration(broker: MQTTBrokerURL(host: "127.0.0.1", port: 1883, usesTLS: false),
                                              device: device)
        configuration.format = format
        configuration.protocolVersion = protocolVersion
        configuration.user = user
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

    @Test func noFormatHasAWillOrConnectMessagesButHomeAssistant() {
        for format in [MQTTFormat.livelocd, .owntracks] {
            var state = MQTTPublishState(shareActive: true)
            #expect(Self.formatter(format).will == nil)
            #expect(Self.formatter(format).connectMessages(state: &state).isEmpty)
            #expect(Self.formatter(format).disconnectMessages(state: &state).isEmpty)
        }
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
        #expect(fields["created_at"] == fields["tst"])
        #expect(fields.count == 10)
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

    @Test func homeAssistantConnectionStartsWithTheRetainedDiscoveryConfig() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.homeassistant)
        let messages = formatter.connectMessages(state: &state)
        try #require(messages.count == 1)
        #expect(messages[0].topic == "homeassistant/device_tracker/livelocd_van-7/config")
        #expect(messages[0].retain)
        let config = try Self.object(messages[0].payload)
        #expect(config["json_attributes_topic"] == .string("livelocd/van-7/attributes"))
        #expect(config["availability_topic"] == .string("livelocd/van-7/availability"))
        #expect(config["payload_available"] == .string("online"))
        #expect(config["payload_not_available"] == .string("offline"))
        #expect(config["source_type"] == .string("gps"))
        #expect(config["unique_id"] == .string("livelocd_van-7"))
        #expect(config["name"] == .string("van-7"))
        #expect(config["qos"] == .number("1"))
        guard case .object(let device) = config["device"] else { Issue.record("no device"); return }
        #expect(device["identifiers"] == .array([.string("livelocd_van-7")]))
        #expect(device["name"] == .string("van-7"))
        #expect(formatter.will == MQTTMessage(topic: "livelocd/van-7/availability", payload: Array("offline".utf8),
                                              qos: .atLeastOnce, retain: true))
    }

    @Test func homeAssistantUpdateIsRetainedAttributesThenOnlineOncePerConnection() throws {
        var state = MQTTPublishState()
        let formatter = Self.formatter(.homeassistant)
        _ = formatter.connectMessages(state: &state)
        let first = formatter.messages(for: Self.update(at: 60), state: &state)
        try #require(first.count == 2)
        #expect(first[0].topic == "livelocd/van-7/attributes")
        #expect(first[0].retain && first[0].messageExpirySeconds == 840)
        let attributes = try Self.object(first[0].payload)
        #expect(attributes["latitude"] == .number("48.1405925"))
        #expect(attributes["longitude"] == .number("11.5588047"))
        #expect(attributes["gps_accuracy"] == .number("2.1"))
        #expect(attributes["share_id"] == .string(Self.shareID.rawValue))
        #expect(attributes["expires_at"] == .string("2026-03-14T08:15:00.000Z"))
        #expect(attributes["speed"] == .number("12.5"))
        #expect(attributes["course"] == .number("27.8"))
        #expect(attributes["altitude"] == .number("519.4"))
        #expect(attributes.count == 8)
        #expect(first[1] == MQTTMessage(topic: "livelocd/van-7/availability", payload: Array("online".utf8),
                                        qos: .atLeastOnce, retain: true))
        // Already online on this connection: attributes only.
        #expect(formatter.messages(for: Self.update(seq: 2, at: 61), state: &state).map(\.topic) == ["livelocd/van-7/attributes"])
        // A new connection (after the will said offline): config, and online again at once.
        let reconnect = formatter.connectMessages(state: &state)
        #expect(reconnect.map(\.topic) == ["homeassistant/device_tracker/livelocd_van-7/config", "livelocd/van-7/availability"])
        #expect(reconnect[1].payloadText == "online")
    }

    @Test func homeAssistantShareEndIsFinalAttributesThenOfflineAndUnknownValuesAreLeftOut() throws {
        var state = MQTTPublishState(shareActive: true, announcedAvailability: true)
        let formatter = Self.formatter(.homeassistant)
        let final = formatter.messages(for: Self.finalUpdate(endedAt: 300), state: &state)
        try #require(final.count == 2)
        #expect(final[0].messageExpirySeconds == nil && final[0].retain)
        let attributes = try Self.object(final[0].payload)
        #expect(attributes["expires_at"] == .string("2026-03-14T08:05:00.000Z"))
        #expect(attributes["speed"] == nil && attributes["course"] == nil && attributes["altitude"] == nil)
        #expect(final[1].payloadText == "offline" && final[1].retain)
        // `ended` after offline was said: nothing more.
        #expect(formatter.messages(for: Self.ended(), state: &state).isEmpty)
        // `ended` on a new connection: offline once more.
        _ = formatter.connectMessages(state: &state)
        #expect(formatter.messages(for: Self.ended(), state: &state).map(\.payloadText) == ["offline"])
        // A clean disconnect says offline unless already said.
        #expect(formatter.disconnectMessages(state: &state).isEmpty)
    }

    @Test func homeAssistantCleanDisconnectWhileSharingSaysOffline() {
        var state = MQTTPublishState(shareActive: true, announcedAvailability: true)
        #expect(Self.formatter(.homeassistant).disconnectMessages(state: &state).map(\.payloadText) == ["offline"])
        #expect(state.announcedAvailability == false)
    }
}
