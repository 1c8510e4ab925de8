/// MQTT's quality of service for a publish.
package enum MQTTQoS: Int, Sendable, Equatable, CaseIterable {
    /// Fire and forget: "delivered" once written to the socket.
    case atMostOnce = 0
    /// Acknowledged by the broker's PUBACK; may arrive twice.
    case atLeastOnce = 1
    /// Acknowledged by the broker's PUBCOMP after a two-step handshake.
    case exactlyOnce = 2
}
