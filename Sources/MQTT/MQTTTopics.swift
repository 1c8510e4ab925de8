/// The topics of one device, for each format.
///
/// - `livelocd`: `<prefix>/<device>/events` and `<prefix>/<device>/location`.
/// - `owntracks`: `owntracks/<user>/<device>` (the OwnTracks booklet, "Topics":
///   https://owntracks.org/booklet/tech/json/, apps publish `_type=location` there).
/// - `homeassistant`: each entity's `<discovery prefix>/<component>/<object id>/config`
///   (`homeAssistantConfig(for:)`, `homeassistant/…` by default; Home Assistant's MQTT discovery topic,
///   `<discovery_prefix>/<component>/[<node_id>/]<object_id>/config`), and the tracker's
///   `<prefix>/<device>/attributes` and `<prefix>/<device>/availability` (online while a share is
///   active), the daemon's `<prefix>/<device>/connection` (online while connected; the last will
///   says offline) and the share's state `<prefix>/<device>/share`.
/// - commands (`mqtt.commands`, every format): `<prefix>/<device>/command`, replies on
///   `<prefix>/<device>/command/reply` unless the command names a response topic.
package struct MQTTTopics: Sendable, Equatable {
    package var events: String
    package var location: String
    package var owntracks: String
    package var homeAssistantAttributes: String
    package var homeAssistantAvailability: String
    package var homeAssistantConnection: String
    package var homeAssistantShare: String
    package var command: String
    package var commandReply: String
    /// Home Assistant's `unique_id` and object id of the tracker, and its device identifier:
    /// `livelocd_<device>`.
    package var homeAssistantObjectID: String
    /// Home Assistant's MQTT discovery prefix (its MQTT integration's option; `homeassistant`).
    package var homeAssistantDiscoveryPrefix: String

    /// - Parameters:
    ///   - prefix: checked by `MQTTConfiguration.checkTopicPrefix`.
    ///   - device: one topic level (`MQTTConfiguration.checkTopicLevel`).
    ///   - owntracksUser: the broker user or nil (`livelocd`); made into one topic level.
    ///   - discoveryPrefix: Home Assistant's discovery prefix, checked as `prefix` is.
    package init(prefix: String, device: String, owntracksUser: String?, discoveryPrefix: String = MQTTConfiguration.defaultDiscoveryPrefix) {
        let base = prefix + "/" + device
        homeAssistantDiscoveryPrefix = discoveryPrefix
        events = base + "/events"
        location = base + "/location"
        owntracks = "owntracks/" + MQTTConfiguration.topicLevel(from: owntracksUser ?? "livelocd") + "/" + device
        homeAssistantObjectID = "livelocd_" + device
        homeAssistantAttributes = base + "/attributes"
        homeAssistantAvailability = base + "/availability"
        homeAssistantConnection = base + "/connection"
        homeAssistantShare = base + "/share"
        command = base + "/command"
        commandReply = base + "/command/reply"
    }

    /// An entity's object id (`unique_id`): `livelocd_<device>` for the tracker (as before 2026),
    /// `livelocd_<device>_<entity>` for the others.
    package func homeAssistantObjectID(for entity: HomeAssistantEntity) -> String {
        entity == .tracker ? homeAssistantObjectID : homeAssistantObjectID + "_" + entity.rawValue
    }

    /// `<discovery prefix>/<component>/<object id>/config`.
    package func homeAssistantConfig(for entity: HomeAssistantEntity) -> String {
        homeAssistantDiscoveryPrefix + "/" + entity.component + "/" + homeAssistantObjectID(for: entity) + "/config"
    }
}
