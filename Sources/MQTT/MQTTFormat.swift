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

/// The MQTT protocol version spoken to the broker.
package enum MQTTProtocolVersion: String, Sendable, Equatable, CaseIterable {
    case v311 = "3.1.1"
    case v5 = "5"
}

/// MQTT's quality of service for a publish.
package enum MQTTQoS: Int, Sendable, Equatable, CaseIterable {
    /// Fire and forget: "delivered" once written to the socket.
    case atMostOnce = 0
    /// Acknowledged by the broker's PUBACK; may arrive twice.
    case atLeastOnce = 1
    /// Acknowledged by the broker's PUBCOMP after a two-step handshake.
    case exactlyOnce = 2
}
