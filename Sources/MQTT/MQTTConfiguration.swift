#if canImport(Glibc)
import Glibc
#endif
import Delivery
import SystemIO

/// Everything the MQTT destination needs: the broker, the wire format, the names in its topics, and
/// how to authenticate. Built by the daemon's `mqtt.*` keys and `liveloc share --mqtt …`.
///
/// Its description never shows the password.
package struct MQTTConfiguration: Sendable, Equatable, CustomStringConvertible {
    package var broker: MQTTBrokerURL
    package var format: MQTTFormat = .livelocd
    /// The device's name in topics (`<prefix>/<device>/…`, `owntracks/<user>/<device>`).
    package var device: String
    /// The broker user name; also OwnTracks' `<user>` (`livelocd` when nil).
    package var user: String?
    /// The broker password (read from a file or a systemd credential, never from a command line).
    package var password: String?
    /// A CA bundle (PEM) to trust for `mqtts://`; nil for the system store (`/etc/ssl/certs`).
    package var caFile: String?
    /// A client certificate and its key (PEM), for brokers that authenticate clients by certificate.
    package var clientCertificate: String?
    package var clientKey: String?
    /// The MQTT client id: stable, so that the broker keeps the session across reconnects.
    package var clientID: String
    package var qos: MQTTQoS = .atLeastOnce
    package var protocolVersion: MQTTProtocolVersion = .v5
    /// The first topic level(s) of the `livelocd` and `homeassistant` formats' own topics.
    package var topicPrefix = "livelocd"
    /// Home Assistant's MQTT discovery prefix (`mqtt.discovery_prefix`).
    package var discoveryPrefix = MQTTConfiguration.defaultDiscoveryPrefix
    package static let defaultDiscoveryPrefix = "homeassistant"
    /// How often an idle connection is checked (MQTT keepalive).
    package var keepalive: Duration = .seconds(30)
    /// How long a connection attempt may take, TCP and TLS and CONNACK, before it counts as failed.
    package var connectTimeout: Duration = .seconds(10)
    /// The wait between failed connection attempts (capped, jittered).
    package var reconnect = RetryPolicy(base: .seconds(1), cap: .seconds(60))
    /// How long the broker keeps the session after a disconnect (MQTT 5 session expiry interval).
    package var sessionExpirySeconds: UInt32 = 86_400
    /// Most events sent and not yet acknowledged.
    package var maxInFlight = 32
    /// Whether `<prefix>/<device>/command` is subscribed to, to start and stop shares
    /// (`mqtt.commands`; the daemon only). With `homeassistant`, also announces the buttons.
    package var commands = false
    /// Whether the device has a battery (the daemon found one): with `homeassistant`, announces the
    /// battery sensor.
    package var reportsBattery = false
    /// The shares' links (the `link` destination's), published with Home Assistant's tracker
    /// attributes as `share_link` while a share is active; nil: none.
    package var shareLinks: ShareLinks?

    /// A configuration with the defaults: `livelocd` format, QoS 1, MQTT 5, prefix `livelocd`, the
    /// client id derived from the device.
    package init(broker: MQTTBrokerURL, device: String) {
        self.broker = broker
        self.device = device
        clientID = Self.defaultClientID(device: device)
    }

    /// `livelocd-<device>`.
    package static func defaultClientID(device: String) -> String { "livelocd-" + device }

    /// The host name with every character a topic level cannot hold well replaced by `_`; `livelocd`
    /// when the host has no name.
    package static func defaultDevice() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "livelocd" }
        let name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = topicLevel(from: String(name.prefix(64)))
        return cleaned.isEmpty ? "livelocd" : cleaned
    }

    /// `text` with every character other than letters, digits, `.`, `_` and `-` replaced by `_`:
    /// a name (a host name, a broker user such as `jane@example.org`) made into one topic level.
    package static func topicLevel(from text: String) -> String {
        String(text.map { isSafeTopicCharacter($0) ? $0 : "_" })
    }

    /// Checks a device or user name: one topic level of letters, digits, `.`, `_` and `-` (1-64).
    /// - Throws: `MQTTConfigurationError.badTopicPart`.
    package static func checkTopicLevel(_ text: String) throws(MQTTConfigurationError) {
        guard !text.isEmpty, text.count <= 64 else { throw .badTopicPart(text, reason: "must have 1 to 64 characters") }
        guard text.allSatisfy(isSafeTopicCharacter) else {
            throw .badTopicPart(text, reason: "may hold only letters, digits, '.', '_' and '-'")
        }
    }

    /// Checks a topic prefix: one or more such levels separated by `/`.
    /// - Throws: `MQTTConfigurationError.badTopicPart`.
    package static func checkTopicPrefix(_ text: String) throws(MQTTConfigurationError) {
        for level in text.split(separator: "/", omittingEmptySubsequences: false) {
            do { try checkTopicLevel(String(level)) } catch {
                throw .badTopicPart(text, reason: "must be topic levels of letters, digits, '.', '_' and '-' separated by '/'")
            }
        }
    }

    private static func isSafeTopicCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Reads the password: the file's first line, without its line end (at most 64 KiB). The file
    /// must be readable by its owner only (`readSecretFile`: mode 0600 or 0400).
    /// - Throws: `MQTTConfigurationError.password` naming the file, never its content.
    package static func loadPassword(fromFile path: String) throws(MQTTConfigurationError) -> String {
        let bytes: [UInt8]
        do { bytes = try readSecretFile(path) } catch { throw .password(path: path, reason: error.description) }
        var line = bytes.prefix(while: { $0 != UInt8(ascii: "\n") })
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard !line.isEmpty else { throw .password(path: path, reason: "the first line is empty") }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw .password(path: path, reason: "not UTF-8 text")
        }
        return text
    }

    package var description: String {
        var text = "\(broker) format=\(format.rawValue) device=\(device) client_id=\(clientID) qos=\(qos.rawValue) "
            + "protocol=\(protocolVersion.rawValue) topic_prefix=\(topicPrefix) discovery_prefix=\(discoveryPrefix)"
        if let user { text += " user=\(user)" }
        if password != nil { text += " password=(set)" }
        if let caFile { text += " ca_file=\(caFile)" }
        if let clientCertificate { text += " client_cert=\(clientCertificate)" }
        if commands { text += " commands=true" }
        return text
    }
}
