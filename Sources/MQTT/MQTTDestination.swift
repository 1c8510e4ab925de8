import Delivery
import LiveLocation
import SystemIO

/// Share events to an MQTT broker (libmosquitto), in one of three formats: livelocd's own JSON,
/// OwnTracks, or a Home Assistant device tracker (see `MQTTFormatter` and the README's "MQTT").
///
/// `send` publishes an event's messages in call order and fulfils the receipt when the broker
/// acknowledged all of them (QoS 1: PUBACK), not when libmosquitto took them. When the connection
/// drops, every unacknowledged event is reported `retry`, so the runner sends it again from its
/// queue, with the same payload (receivers deduplicate on shareId + seq). `run` keeps the connection
/// (reconnecting with capped jittered backoff) until cancelled, then disconnects cleanly.
package struct MQTTDestination: Destination {
    package let connection: MQTTConnection

    /// - Parameter log: one line per connection state change; never the password.
    /// - Throws: `MQTTConnectionError` when libmosquitto cannot be initialised, `SystemError` when
    ///   the connection's wake-up pipe cannot be made.
    /// `mqtt mqtt://HOST:PORT prefix P device D format F`: the broker and where on it the events go.
    /// Made once: the runner names its queue with it for every event.
    package let identity: String

    package init(configuration: MQTTConfiguration, log: Logger) throws {
        connection = try MQTTConnection(configuration: configuration, log: log)
        identity = "mqtt \(configuration.broker) prefix \(configuration.topicPrefix) device \(configuration.device) format \(configuration.format.rawValue)"
    }

    package var name: String { "mqtt" }

    /// Up to `maxInFlight` (32) events unacknowledged: a broker acknowledges in order, so a window
    /// keeps the connection busy over a slow link without reordering.
    package var queue: QueuePolicy { QueuePolicy(maxInFlight: connection.configuration.maxInFlight) }

    package func send(_ event: QueuedEvent) -> DeliveryReceipt {
        connection.send(event)
    }

    package func run() async throws {
        try await connection.run()
    }

    package var link: LinkState? { connection.link }

    /// The connection, which takes the commands received on `<prefix>/<device>/command`, when
    /// `mqtt.commands` is set.
    package var commandChannel: (any CommandChannel)? {
        connection.configuration.commands ? connection : nil
    }
}
