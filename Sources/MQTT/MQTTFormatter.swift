import Delivery
import JSONCoding
import LiveLocation

/// Turns share events into MQTT messages for one format: pure, so that every topic, payload, QoS,
/// retain flag and expiry can be checked without a broker.
///
/// An event may become several messages, published in the order returned:
///
/// | format | `updated` (active) | final `updated` | `ended` |
/// | --- | --- | --- | --- |
/// | `livelocd` | events topic; location, retained, expiry = time left | events; location, retained, no expiry | events |
/// | `owntracks` | location, retained, expiry = time left | location, retained, no expiry | empty retained payload (clears it) |
/// | `homeassistant` | attributes, retained, expiry = time left; share state, retained; `online` if not yet said | attributes, retained; share state; `offline` | share state; `offline` if not yet said |
///
/// With `homeassistant`, every connection starts with the discovery configs (retained), `online` on
/// the connection topic and, when a share is active, `online` on the tracker's availability topic;
/// the last will is `offline` on the connection topic. With `owntracks`, the last will is the
/// apps' `{"_type":"lwt","tst":…}`. Expiries are MQTT 5 only.
package struct MQTTFormatter: Sendable {
    package let format: MQTTFormat
    package let topics: MQTTTopics
    package let qos: MQTTQoS
    package let protocolVersion: MQTTProtocolVersion
    package let device: String
    /// Home Assistant: announce the buttons (commands are taken).
    package let commands: Bool
    /// Home Assistant: announce the battery sensor.
    package let reportsBattery: Bool
    /// The shares' links, for the tracker's attributes (`share_link`); nil: none.
    package let shareLinks: ShareLinks?

    /// OwnTracks' `acc` when the receiver reports no accuracy: 10 m, a consumer receiver's usual
    /// 2DRMS (the measure of `accuracy`). OwnTracks consumers need one: Home Assistant's OwnTracks
    /// integration ignores a location without `acc`.
    package static let owntracksUnknownAccuracyMeters = 10

    package static let online: [UInt8] = Array("online".utf8)
    package static let offline: [UInt8] = Array("offline".utf8)

    package init(format: MQTTFormat, topics: MQTTTopics, qos: MQTTQoS, protocolVersion: MQTTProtocolVersion, device: String,
                 commands: Bool = false, reportsBattery: Bool = false, shareLinks: ShareLinks? = nil) {
        self.commands = commands
        self.reportsBattery = reportsBattery
        self.shareLinks = shareLinks
        self.format = format
        self.topics = topics
        self.qos = qos
        self.protocolVersion = protocolVersion
        self.device = device
    }

    package init(configuration: MQTTConfiguration) {
        self.init(format: configuration.format,
                  topics: MQTTTopics(prefix: configuration.topicPrefix, device: configuration.device,
                                     owntracksUser: configuration.user, discoveryPrefix: configuration.discoveryPrefix),
                  qos: configuration.qos, protocolVersion: configuration.protocolVersion, device: configuration.device,
                  commands: configuration.commands, reportsBattery: configuration.reportsBattery, shareLinks: configuration.shareLinks)
    }

    // MARK: - Connection

    /// The last will, set before connecting, which the broker publishes when the connection is
    /// lost without a DISCONNECT: `offline` on the connection topic (retained) for `homeassistant`;
    /// for `owntracks` the apps' `{"_type":"lwt","tst":…}` on the device's topic, `tst` being when
    /// the client first connected (OwnTracks booklet, `_type=lwt`), not retained (the retained
    /// message there is the location); nil for `livelocd`.
    package func will(firstConnectedAt: Timestamp) -> MQTTMessage? {
        switch format {
        case .livelocd:
            return nil
        case .owntracks:
            var line = JSONLine(capacity: 48)
            line.field("_type", "lwt")
            line.field("tst", Int(firstConnectedAt.millisecondsSince1970.floorDivided(by: 1000).quotient))
            return MQTTMessage(topic: topics.owntracks, payload: Array(line.finishLine().dropLast()), qos: qos, retain: false)
        case .homeassistant:
            return MQTTMessage(topic: topics.homeAssistantConnection, payload: Self.offline, qos: qos, retain: true)
        }
    }

    /// What a new connection publishes before any event: for `homeassistant`, every entity's
    /// discovery config (retained; an empty retained payload removes an entity not offered, such
    /// as the buttons without `mqtt.commands`), `online` on the connection topic, then `online` on
    /// the tracker's availability topic when the last event left a share active.
    package func connectMessages(state: inout MQTTPublishState) -> [MQTTMessage] {
        state.connectionStarted()
        guard format == .homeassistant else { return [] }
        var messages = HomeAssistantEntity.allCases.map { entity in
            MQTTMessage(topic: topics.homeAssistantConfig(for: entity), payload: homeAssistantDiscoveryConfig(entity) ?? [],
                        qos: qos, retain: true)
        }
        messages.append(MQTTMessage(topic: topics.homeAssistantConnection, payload: Self.online, qos: qos, retain: true))
        if state.shareActive == true {
            messages.append(availability(true, state: &state))
        }
        return messages
    }

    /// What a clean disconnect publishes first (the broker does not send the will then): for
    /// `homeassistant`, `offline` on the tracker's availability topic (unless already said) and on
    /// the connection topic, so that every entity is unavailable while the daemon is stopped.
    package func disconnectMessages(state: inout MQTTPublishState) -> [MQTTMessage] {
        guard format == .homeassistant else { return [] }
        var messages: [MQTTMessage] = []
        if state.announcedAvailability != false { messages.append(availability(false, state: &state)) }
        messages.append(MQTTMessage(topic: topics.homeAssistantConnection, payload: Self.offline, qos: qos, retain: true))
        return messages
    }

    // MARK: - Events

    /// The messages of one event, in publishing order (possibly none: an `ended` after `offline`
    /// was already said on this connection).
    package func messages(for event: QueuedEvent, state: inout MQTTPublishState) -> [MQTTMessage] {
        let active: Bool
        switch event.event {
        case .updated(_, _, let location): active = location.isActive
        case .ended: active = false
        }
        defer { state.shareActive = active }
        switch format {
        case .livelocd: return livelocdMessages(event)
        case .owntracks: return owntracksMessages(event.event)
        case .homeassistant: return homeAssistantMessages(event.event, state: &state)
        }
    }

    /// The MQTT 5 expiry of a retained live position: the share's time left when the fix was taken
    /// (`expiresAt - lastUpdateAt`, rounded up to whole seconds, at least 1), so that a broker forgets
    /// the position when the share ends, even if the device never comes back. Nil for a final
    /// update (it is the record of the end, kept) and with MQTT 3.1.1.
    ///
    /// The share's own clock is used, not the wall clock: for a replayed log the share runs on the
    /// log's timeline. A message sent again after an outage keeps its first expiry, so the broker
    /// may keep it for up to the outage's length after the share's end.
    package func liveExpirySeconds(_ location: LiveLocation) -> UInt32? {
        guard protocolVersion == .v5, location.isActive else { return nil }
        let milliseconds = location.expiresAt.millisecondsSince1970 - location.lastUpdateAt.millisecondsSince1970
        let seconds = (milliseconds + 999) / 1000
        return UInt32(clamping: max(seconds, 1))
    }

    private func livelocdMessages(_ event: QueuedEvent) -> [MQTTMessage] {
        var messages = [MQTTMessage(topic: topics.events, payload: event.json, qos: qos, retain: false)]
        if case .updated(_, _, let location) = event.event {
            messages.append(MQTTMessage(topic: topics.location, payload: event.json, qos: qos, retain: true,
                                        messageExpirySeconds: liveExpirySeconds(location)))
        }
        return messages
    }

    private func owntracksMessages(_ event: ShareEvent) -> [MQTTMessage] {
        switch event {
        case .updated(_, _, let location):
            return [MQTTMessage(topic: topics.owntracks, payload: owntracksLocation(location), qos: qos, retain: true,
                                messageExpirySeconds: liveExpirySeconds(location))]
        case .ended:
            // An empty retained message deletes the device's last location: OwnTracks apps then drop
            // it from their friends' maps (the way the OwnTracks authors give for removing a friend,
            // owntracks/owntracks#25), as a Telegram live location stops for every viewer.
            return [MQTTMessage(topic: topics.owntracks, payload: [], qos: qos, retain: true)]
        }
    }

    private func homeAssistantMessages(_ event: ShareEvent, state: inout MQTTPublishState) -> [MQTTMessage] {
        switch event {
        case .updated(let id, _, let location):
            var messages = [MQTTMessage(topic: topics.homeAssistantAttributes,
                                        payload: homeAssistantAttributes(id, location), qos: qos, retain: true,
                                        messageExpirySeconds: liveExpirySeconds(location)),
                            MQTTMessage(topic: topics.homeAssistantShare, payload: homeAssistantShareState(location),
                                        qos: qos, retain: true)]
            state.countdown = location.isActive ? .init(millisecondsLeft: Self.millisecondsLeft(location),
                                                        batteryLevel: location.battery?.level,
                                                        minutesSaid: Self.minutesLeft(milliseconds: Self.millisecondsLeft(location))) : nil
            if state.announcedAvailability != location.isActive {
                messages.append(availability(location.isActive, state: &state))
            }
            return messages
        case .ended:
            state.countdown = nil
            // The final update said OFF already (with the battery): only a share that ended without
            // one (no fix, or an update not yet formatted) needs it said here.
            var messages: [MQTTMessage] = []
            if state.shareActive != false {
                messages.append(MQTTMessage(topic: topics.homeAssistantShare, payload: homeAssistantShareState(nil),
                                            qos: qos, retain: true))
            }
            if state.announcedAvailability != false { messages.append(availability(false, state: &state)) }
            return messages
        }
    }

    private func availability(_ online: Bool, state: inout MQTTPublishState) -> MQTTMessage {
        state.announcedAvailability = online
        return MQTTMessage(topic: topics.homeAssistantAvailability, payload: online ? Self.online : Self.offline,
                           qos: qos, retain: true)
    }

    // MARK: - Payloads

    /// An OwnTracks `_type=location` object. Fields and units from the OwnTracks booklet
    /// (https://owntracks.org/booklet/tech/json/, `_type=location`): `lat`, `lon` (float degrees),
    /// `tst` (integer epoch seconds of the fix), `acc` (integer metres), `alt` (integer metres above
    /// sea level), `vel` (integer km/h), `cog` (integer degrees), `tid` (tracker id, two characters;
    /// the apps default it to the topic's last two characters), `created_at` (when the message was
    /// constructed, as opposed to `tst`), `batt` (integer percent) and `bs` (battery status: 0
    /// unknown, 1 unplugged, 2 charging, 3 full). As the booklet says of the apps, `alt`, `vel` and
    /// `cog` are only added when not zero; `acc` is always there, at least 1; `batt` and `bs` only
    /// with a battery.
    ///
    /// `created_at` is when the event was made on the share's clock, written only when it differs
    /// from `tst`: for a final update, the moment the share ended. So an event sent twice has the
    /// same payload twice.
    package func owntracksLocation(_ location: LiveLocation) -> [UInt8] {
        var line = JSONLine(capacity: 192)
        line.field("_type", "location")
        line.field("lat", location.latitude, fractionDigits: 7)
        line.field("lon", location.longitude, fractionDigits: 7)
        line.field("tst", Int(location.lastUpdateAt.millisecondsSince1970.floorDivided(by: 1000).quotient))
        let accuracy = location.accuracyMeters.flatMap { $0.isFinite ? Int(clampingRounded: $0) : nil }
        line.field("acc", max(accuracy ?? Self.owntracksUnknownAccuracyMeters, 1))
        line.field("alt", nonZero(location.altitudeMeters.flatMap { Int(clampingRounded: $0) }))
        line.field("vel", nonZero(location.speedMetersPerSecond.flatMap { Int(clampingRounded: $0 * 3.6) }))
        line.field("cog", nonZero(location.courseDegreesTrue.flatMap { Int(clampingRounded: $0) }.map { $0 % 360 }))
        line.field("tid", owntracksTrackerID)
        if let battery = location.battery {
            line.field("batt", battery.level)
            line.field("bs", Self.owntracksBatteryStatus(battery.status))
        }
        let created = location.isActive ? location.lastUpdateAt : location.expiresAt
        let tst = location.lastUpdateAt.millisecondsSince1970.floorDivided(by: 1000).quotient
        let createdAt = created.millisecondsSince1970.floorDivided(by: 1000).quotient
        if createdAt != tst { line.field("created_at", Int(createdAt)) }
        return Array(line.finishLine().dropLast())
    }

    /// The booklet's `bs`: 0 unknown, 1 unplugged, 2 charging, 3 full.
    package static func owntracksBatteryStatus(_ status: BatteryReading.Status) -> Int {
        switch status {
        case .unknown: 0
        case .discharging: 1
        case .charging: 2
        case .full: 3
        }
    }

    /// The last two characters of the device name (a one-character name twice), as the OwnTracks
    /// apps derive `tid` from the topic.
    package var owntracksTrackerID: String {
        let tail = String(device.suffix(2))
        return tail.count == 2 ? tail : tail + tail
    }

    /// The device tracker's JSON attributes. Home Assistant takes `latitude`, `longitude` and
    /// `gps_accuracy` (metres) from them as the tracker's location (home-assistant.io
    /// source/_integrations/device_tracker.mqtt.markdown, `json_attributes_topic`); the others are
    /// shown as attributes: `share_id`, `expires_at` (ISO 8601 UTC; in a final update, when the share
    /// ended), `speed` (m/s), `course` (degrees true, 0 ≤ course < 360), `altitude` (metres above mean
    /// sea level), `battery_level` (percent), `battery_charging` (true on external power) and
    /// `share_link` (the share link viewers open, with a `link` destination, while the share is
    /// active). Unknown values are left out.
    package func homeAssistantAttributes(_ shareID: ShareID, _ location: LiveLocation) -> [UInt8] {
        var line = JSONLine(capacity: 256)
        line.field("latitude", location.latitude, fractionDigits: 7)
        line.field("longitude", location.longitude, fractionDigits: 7)
        line.field("gps_accuracy", location.accuracyMeters, fractionDigits: 1)
        line.field("share_id", shareID.rawValue)
        // The link viewers open (its key in it), once the `link` destination made it: from the
        // update after the share's first one posted to the relay; not after the share's end.
        if location.isActive, let link = shareLinks?.link(for: shareID) { line.field("share_link", link) }
        line.field("expires_at", location.expiresAt)
        line.field("speed", location.speedMetersPerSecond, fractionDigits: 3)
        line.field("course", Course.normalized(location.courseDegreesTrue, fractionDigits: 1), fractionDigits: 1)
        line.field("altitude", location.altitudeMeters, fractionDigits: 1)
        if let battery = location.battery {
            line.field("battery_level", battery.level)
            if battery.status != .unknown { line.field("battery_charging", battery.status.isOnExternalPower) }
        }
        return Array(line.finishLine().dropLast())
    }

    /// The share's state for the "Sharing" and "Minutes left" entities (and the battery sensor):
    /// `{"sharing":"ON","minutes_left":14,"battery_level":87}`. Minutes left are the share's time
    /// left when the fix was taken, rounded up; `OFF` and 0 after the share's end (nil location).
    package func homeAssistantShareState(_ location: LiveLocation?) -> [UInt8] {
        let active = location?.isActive ?? false
        return homeAssistantShareState(active: active, minutesLeft: active ? Self.minutesLeft(milliseconds: Self.millisecondsLeft(location!)) : 0,
                                       batteryLevel: location?.battery?.level)
    }

    private func homeAssistantShareState(active: Bool, minutesLeft: Int, batteryLevel: Int?) -> [UInt8] {
        var line = JSONLine(capacity: 80)
        line.field("sharing", active ? "ON" : "OFF")
        line.field("minutes_left", minutesLeft)
        line.field("battery_level", batteryLevel)
        return Array(line.finishLine().dropLast())
    }

    /// The share's state once more when the minutes left, counted down by `elapsed` since the last
    /// update was formatted, went below what was last said: so that "Minutes left" keeps going down
    /// while no fix is sent (a throttled or a standing device). Nil when nothing changed or no share
    /// is active (the connection asks when `homeAssistantCountdownDue` says; this says something once a minute).
    package func homeAssistantCountdown(elapsed: Duration, state: inout MQTTPublishState) -> MQTTMessage? {
        guard format == .homeassistant, var countdown = state.countdown else { return nil }
        let minutes = Self.minutesLeft(milliseconds: countdown.millisecondsLeft - elapsed.wholeMilliseconds)
        guard minutes < countdown.minutesSaid else { return nil }
        countdown.minutesSaid = minutes
        state.countdown = countdown
        return MQTTMessage(topic: topics.homeAssistantShare,
                           payload: homeAssistantShareState(active: true, minutesLeft: minutes, batteryLevel: countdown.batteryLevel),
                           qos: qos, retain: true)
    }

    /// When, counted from the last update's formatting as `homeAssistantCountdown`'s `elapsed`, the
    /// minutes left go below what was last said: so that the connection waits for exactly that. Nil
    /// when nothing counts down (another format, no active share, none left).
    package func homeAssistantCountdownDue(state: MQTTPublishState) -> Duration? {
        guard format == .homeassistant, let countdown = state.countdown, countdown.minutesSaid > 0 else { return nil }
        return .milliseconds(countdown.millisecondsLeft - Int64(countdown.minutesSaid - 1) * 60_000)
    }

    private static func millisecondsLeft(_ location: LiveLocation) -> Int64 {
        location.expiresAt.millisecondsSince1970 - location.lastUpdateAt.millisecondsSince1970
    }

    /// Whole minutes, rounded up; 0 for none left.
    private static func minutesLeft(milliseconds: Int64) -> Int {
        Int(max(0, (milliseconds + 59_999) / 60_000))
    }

    /// The discovery config of `entity`, or nil when it is not offered (the buttons without
    /// commands, the battery sensor without a battery). Every entity is on the device
    /// `livelocd_<device>`, has `default_entity_id` `<component>.<object id>` and `origin`
    /// `livelocd`, and is available while the daemon is connected (the connection topic); the
    /// tracker, the device's main entity (`name: null`), also only while a share is active.
    package func homeAssistantDiscoveryConfig(_ entity: HomeAssistantEntity) -> [UInt8]? {
        let objectID = topics.homeAssistantObjectID(for: entity)
        let connection = HomeAssistantEntityConfig.Availability(topic: topics.homeAssistantConnection)
        var config = HomeAssistantEntityConfig(
            name: nil, defaultEntityID: entity.component + "." + objectID, uniqueID: objectID, availability: [connection],
            qos: qos.rawValue, device: .init(identifiers: [topics.homeAssistantObjectID], name: device))
        switch entity {
        case .tracker:
            config.availability.append(.init(topic: topics.homeAssistantAvailability))
            config.jsonAttributesTopic = topics.homeAssistantAttributes
            config.sourceType = "gps"
        case .sharing:
            config.name = "Sharing"
            config.stateTopic = topics.homeAssistantShare
            config.valueTemplate = "{{ value_json.sharing }}"
            config.icon = "mdi:map-marker-radius"
        case .minutesLeft:
            config.name = "Minutes left"
            config.stateTopic = topics.homeAssistantShare
            config.valueTemplate = "{{ value_json.minutes_left }}"
            config.deviceClass = "duration"
            config.unitOfMeasurement = "min"
            config.icon = "mdi:timer-sand"
        case .battery:
            guard reportsBattery else { return nil }
            config.name = "Battery"
            config.stateTopic = topics.homeAssistantShare
            config.valueTemplate = "{{ value_json.battery_level }}"
            config.deviceClass = "battery"
            config.unitOfMeasurement = "%"
            config.stateClass = "measurement"
            config.entityCategory = "diagnostic"
        case .share15Minutes, .share1Hour, .share8Hours, .stopSharing, .extend15Minutes, .extend1Hour:
            guard commands else { return nil }
            config.name = switch entity {
            case .share15Minutes: "Share 15 min"
            case .share1Hour: "Share 1 h"
            case .share8Hours: "Share 8 h"
            case .extend15Minutes: "+15 min"
            case .extend1Hour: "+1 h"
            default: "Stop sharing"
            }
            config.commandTopic = topics.command
            config.payloadPress = entity.command
            config.icon = switch entity {
            case .stopSharing: "mdi:map-marker-off"
            case .extend15Minutes, .extend1Hour: "mdi:timer-plus-outline"
            default: "mdi:map-marker-account"
            }
            config.messageExpiryInterval = Self.commandExpirySeconds
        }
        // Strings and integers only: encoding cannot fail.
        return (try? JSON.encode(config)) ?? []
    }

    /// How long a button's press may wait at the broker for livelocd (MQTT 5 message expiry): a
    /// press while the daemon is away does not start a share minutes or days later.
    package static let commandExpirySeconds = 60

    private func nonZero(_ value: Int?) -> Int? {
        value == 0 ? nil : value
    }
}
