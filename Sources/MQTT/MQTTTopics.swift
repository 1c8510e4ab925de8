/// The topics of one device, for each format.
///
/// - `livelocd`: `<prefix>/<device>/events` and `<prefix>/<device>/location`.
/// - `owntracks`: `owntracks/<user>/<device>` (the OwnTracks booklet, "Topics":
///   https://owntracks.org/booklet/tech/json/, apps publish `_type=location` there).
/// - `homeassistant`: `homeassistant/device_tracker/<object id>/config` (Home Assistant's MQTT
///   discovery topic, `<discovery_prefix>/device_tracker/[<node_id>/]<object_id>/config`, in
///   home-assistant.io source/_integrations/device_tracker.mqtt.markdown), and the tracker's
///   `<prefix>/<device>/attributes` and `<prefix>/<device>/availability`.
package struct MQTTTopics: Sendable, Equatable {
    package var events: String
    package var location: String
    package var owntracks: String
    package var homeAssistantConfig: String
    package var homeAssistantAttributes: String
    package var homeAssistantAvailability: String
    /// Home Assistant's `unique_id` and object id of the tracker, and its device identifier:
    /// `livelocd_<device>`.
    package var homeAssistantObjectID: String

    /// - Parameters:
    ///   - prefix: checked by `MQTTConfiguration.checkTopicPrefix`.
    ///   - device: one topic level (`MQTTConfiguration.checkTopicLevel`).
    ///   - owntracksUser: the broker user or nil (`livelocd`); made into one topic level.
    package init(prefix: String, device: String, owntracksUser: String?) {
        let base = prefix + "/" + device
        events = base + "/events"
        location = base + "/location"
        owntracks = "owntracks/" + MQTTConfiguration.topicLevel(from: owntracksUser ?? "livelocd") + "/" + device
        homeAssistantObjectID = "livelocd_" + device
        homeAssistantConfig = "homeassistant/device_tracker/" + homeAssistantObjectID + "/config"
        homeAssistantAttributes = base + "/attributes"
        homeAssistantAvailability = base + "/availability"
    }
}
