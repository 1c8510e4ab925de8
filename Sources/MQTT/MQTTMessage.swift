/// One PUBLISH: what the formatter makes of an event, and what the connection puts on the wire.
package struct MQTTMessage: Sendable, Equatable, CustomStringConvertible {
    package var topic: String
    package var payload: [UInt8]
    package var qos: MQTTQoS
    /// Whether the broker keeps it as the topic's last message for later subscribers. An empty
    /// retained payload deletes the topic's retained message.
    package var retain: Bool
    /// MQTT 5 message expiry interval, seconds: the broker forgets the message (retained or queued)
    /// after this long. Nil: no expiry (always nil with MQTT 3.1.1, which has no such property).
    package var messageExpirySeconds: UInt32?

    package init(topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool, messageExpirySeconds: UInt32? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.messageExpirySeconds = messageExpirySeconds
    }

    /// The payload as text (for tests and logs of non-secret messages).
    package var payloadText: String { String(decoding: payload, as: UTF8.self) }

    package var description: String {
        "\(topic) qos=\(qos.rawValue)\(retain ? " retained" : "")"
            + (messageExpirySeconds.map { " expiry=\($0)s" } ?? "") + " \(payloadText)"
    }
}
