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
/// | `homeassistant` | attributes, retained, expiry = time left; `online` if not yet said | attributes, retained; `offline` | `offline` if not yet said |
///
/// With `homeassistant`, every connection starts with the discovery config (retained) and, when a
/// share is active, `online`; the last will is `offline`. Expiries are MQTT 5 only.
package struct MQTTFormatter: Sendable {
    package let format: MQTTFormat
    package let topics: MQTTTopics
    package let qos: MQTTQoS
    package let protocolVersion: MQTTProtocolVersion
    package let device: String

    /// OwnTracks' `acc` when the receiver reports no accuracy: 10 m, a consumer receiver's usual
    /// 2DRMS (the measure of `accuracy`). OwnTracks consumers need one: Home Assistant's OwnTracks
    /// integration ignores a location without `acc`.
    package static let owntracksUnknownAccuracyMeters = 10

    package static let online: [UInt8] = Array("online".utf8)
    package static let offline: [UInt8] = Array("offline".utf8)

    package init(format: MQTTFormat, topics: MQTTTopics, qos: MQTTQoS, protocolVersion: MQTTProtocolVersion, device: String) {
        self.format = format
        self.topics = topics
        self.qos = qos
        self.protocolVersion = protocolVersion
        self.device = device
    }

    package init(configuration: MQTTConfiguration) {
        self.init(format: configuration.format,
                  topics: MQTTTopics(prefix: configuration.topicPrefix, device: configuration.device,
                                     owntracksUser: configuration.user),
                  qos: configuration.qos, protocolVersion: configuration.protocolVersion, device: configuration.device)
    }

    // MARK: - Connection

    /// The last will, set before connecting: `offline` on the availability topic (retained) for
    /// `homeassistant`; nil for the other formats.
    package var will: MQTTMessage? {
        guard format == .homeassistant else { return nil }
        return MQTTMessage(topic: topics.homeAssistantAvailability, payload: Self.offline, qos: qos, retain: true)
    }

    /// What a new connection publishes before any event: for `homeassistant`, the discovery config
    /// (retained), then `online` when the last event left a share active.
    package func connectMessages(state: inout MQTTPublishState) -> [MQTTMessage] {
        state.connectionStarted()
        guard format == .homeassistant else { return [] }
        var messages = [MQTTMessage(topic: topics.homeAssistantConfig, payload: homeAssistantDiscoveryConfig(),
                                    qos: qos, retain: true)]
        if state.shareActive == true {
            messages.append(availability(true, state: &state))
        }
        return messages
    }

    /// What a clean disconnect publishes first (the broker does not send the will then): `offline`
    /// for `homeassistant`, so that the tracker is unavailable while the daemon is stopped.
    package func disconnectMessages(state: inout MQTTPublishState) -> [MQTTMessage] {
        guard format == .homeassistant, state.announcedAvailability != false else { return [] }
        return [availability(false, state: &state)]
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
                                        messageExpirySeconds: liveExpirySeconds(location))]
            if state.announcedAvailability != location.isActive {
                messages.append(availability(location.isActive, state: &state))
            }
            return messages
        case .ended:
            guard state.announcedAvailability != false else { return [] }
            return [availability(false, state: &state)]
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
    /// constructed, as opposed to `tst`). As the booklet says of the apps, `alt`, `vel` and `cog` are
    /// only added when not zero; `acc` is always there, at least 1.
    ///
    /// `created_at` is when the event was made on the share's clock: the fix's time, or for a final
    /// update the moment the share ended. So an event sent twice has the same payload twice.
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
        let created = location.isActive ? location.lastUpdateAt : location.expiresAt
        line.field("created_at", Int(created.millisecondsSince1970.floorDivided(by: 1000).quotient))
        return Array(line.finishLine().dropLast())
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
    /// ended), `speed` (m/s), `course` (degrees true), `altitude` (metres above mean sea level).
    /// Unknown values are left out.
    package func homeAssistantAttributes(_ shareID: ShareID, _ location: LiveLocation) -> [UInt8] {
        var line = JSONLine(capacity: 256)
        line.field("latitude", location.latitude, fractionDigits: 7)
        line.field("longitude", location.longitude, fractionDigits: 7)
        line.field("gps_accuracy", location.accuracyMeters, fractionDigits: 1)
        line.field("share_id", shareID.rawValue)
        line.field("expires_at", location.expiresAt)
        line.field("speed", location.speedMetersPerSecond, fractionDigits: 3)
        line.field("course", location.courseDegreesTrue, fractionDigits: 1)
        line.field("altitude", location.altitudeMeters, fractionDigits: 1)
        return Array(line.finishLine().dropLast())
    }

    /// The discovery config of the device tracker (keys from home-assistant.io
    /// source/_integrations/device_tracker.mqtt.markdown): its attributes topic, its availability
    /// topic with `online`/`offline`, `source_type: gps`, a `unique_id` and a `device` for the device
    /// registry.
    package func homeAssistantDiscoveryConfig() -> [UInt8] {
        let config = HomeAssistantDiscoveryConfig(
            name: device, uniqueID: topics.homeAssistantObjectID, objectID: topics.homeAssistantObjectID,
            jsonAttributesTopic: topics.homeAssistantAttributes, availabilityTopic: topics.homeAssistantAvailability,
            payloadAvailable: "online", payloadNotAvailable: "offline", sourceType: "gps", qos: qos.rawValue,
            device: .init(identifiers: [topics.homeAssistantObjectID], name: device, manufacturer: "livelocd",
                          model: "livelocd"))
        // Strings and integers only: encoding cannot fail.
        return (try? JSON.encode(config)) ?? []
    }

    private func nonZero(_ value: Int?) -> Int? {
        value == 0 ? nil : value
    }
}
