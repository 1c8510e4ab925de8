/// A command that arrived on a destination's command channel (`CommandChannel`: MQTT's
/// `<prefix>/<device>/command` with `mqtt.commands`), as the far end delivered it: what it asks is
/// for the daemon to read (the control protocol's start and stop). The packet, session and MQTT 5
/// fields are MQTT's; another channel leaves them at their defaults.
package struct RemoteCommand: Sendable, Equatable {
    package var payload: [UInt8]
    /// The PUBLISH's packet identifier: a message the broker sends again (its acknowledgement was
    /// lost with the connection) comes with the same one and the same payload.
    package var packetID: Int32
    /// Which of the broker's sessions delivered it (`MQTTConnectionStateMachine.session`): a packet
    /// identifier is one packet's within one session only (a broker restarted without persistence
    /// starts a new one and numbers its packets from 1 again).
    package var session: Int
    /// Whether the publisher asked the broker to keep it (subscribed with "retain as published",
    /// MQTT 5, so that the flag is the publisher's; with 3.1.1 only retained messages delivered at
    /// subscription say so). A retained command would be taken again at every connection, so it is
    /// never taken.
    package var retained: Bool
    /// MQTT 5 response topic: where the reply goes instead of `<prefix>/<device>/command/reply`.
    package var responseTopic: String?
    /// MQTT 5 correlation data, sent back with the reply.
    package var correlationData: [UInt8]?

    package init(payload: [UInt8], packetID: Int32 = 0, session: Int = 1, retained: Bool = false, responseTopic: String? = nil,
                 correlationData: [UInt8]? = nil) {
        self.payload = payload
        self.packetID = packetID
        self.session = session
        self.retained = retained
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }
}
