/// The MQTT protocol version spoken to the broker.
package enum MQTTProtocolVersion: String, Sendable, Equatable, CaseIterable {
    case v311 = "3.1.1"
    case v5 = "5"
}
