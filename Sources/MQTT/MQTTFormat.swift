/// How share events are laid out on the broker: topics, payloads, retained messages.
/// The README's "MQTT" section shows each with an example.
package enum MQTTFormat: String, Sendable, Equatable, CaseIterable {
    /// Every event as the stdout JSON on `<prefix>/<device>/events`, and the latest position retained
    /// on `<prefix>/<device>/location`.
    case livelocd
    /// OwnTracks `_type: location` messages on `owntracks/<user>/<device>`, retained.
    case owntracks
    /// A Home Assistant MQTT device tracker: discovery config, JSON attributes and availability.
    case homeassistant
}
