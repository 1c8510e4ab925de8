#if canImport(Glibc)
import Glibc
#endif
import MQTT

/// The daemon's `mqtt.*` keys: each value checked as it is set (so a bad one names its file and
/// line), and the whole turned into the MQTT destination's configuration at validation.
enum MQTTSettings {
    /// Key, value form and meaning, for `livelocd --help` and the documentation.
    static let keys: [(key: String, value: String, meaning: String)] = [
        ("mqtt.url", "URL", "publish events to this broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default: no MQTT)"),
        ("mqtt.format", "livelocd|owntracks|homeassistant", "the topics and payloads (default livelocd; see README)"),
        ("mqtt.device", "NAME", "this device's name in topics: letters, digits, . _ - (default: the host name)"),
        ("mqtt.user", "NAME", "the broker user name, also OwnTracks' user (default: none; OwnTracks user livelocd)"),
        ("mqtt.password_file", "PATH", "the broker password, the file's first line (default: the systemd credential 'mqtt-password')"),
        ("mqtt.ca_file", "PATH", "trust this CA bundle for mqtts:// (default: the system store, /etc/ssl/certs)"),
        ("mqtt.client_cert", "PATH", "a client certificate for mqtts:// (PEM; with mqtt.client_key)"),
        ("mqtt.client_key", "PATH", "the client certificate's key (PEM, not passphrase-protected)"),
        ("mqtt.client_id", "ID", "the MQTT client id, stable across restarts (default livelocd-DEVICE)"),
        ("mqtt.qos", "0|1|2", "MQTT quality of service of every publish (default 1)"),
        ("mqtt.protocol", "5|3.1.1", "the MQTT version (default 5; 3.1.1 has no message expiry)"),
        ("mqtt.topic_prefix", "PREFIX", "the first topic level(s) of the livelocd and homeassistant topics (default livelocd)"),
    ]

    /// Checks one value. - Throws: `badValue` naming the key, `unknownKey` for another `mqtt.` key.
    static func check(_ key: String, _ value: String) throws(ConfigurationError) {
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "mqtt.url":
            do { _ = try MQTTBrokerURL(parsing: value) } catch {
                guard case .badURL(_, let reason) = error else { throw bad("mqtt://HOST[:PORT] or mqtts://HOST[:PORT]") }
                throw bad("mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (\(reason))")
            }
        case "mqtt.format":
            guard MQTTFormat(rawValue: value) != nil else { throw bad("livelocd, owntracks or homeassistant") }
        case "mqtt.device":
            do { try MQTTConfiguration.checkTopicLevel(value) } catch { throw bad("1 to 64 letters, digits, '.', '_' or '-'") }
        case "mqtt.user":
            guard !value.isEmpty, value.utf8.count <= 256, !value.contains(where: \.isNewline) else {
                throw bad("a user name")
            }
        case "mqtt.password_file", "mqtt.ca_file", "mqtt.client_cert", "mqtt.client_key":
            guard value.hasPrefix("/") else { throw bad("an absolute path") }
        case "mqtt.client_id":
            guard (1...128).contains(value.utf8.count),
                  value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "#") })
            else { throw bad("1 to 128 printable ASCII characters without spaces, '+' or '#'") }
        case "mqtt.qos":
            guard let number = Int(value), MQTTQoS(rawValue: number) != nil else { throw bad("0, 1 or 2") }
        case "mqtt.protocol":
            guard MQTTProtocolVersion(rawValue: value) != nil else { throw bad("5 or 3.1.1") }
        case "mqtt.topic_prefix":
            do { try MQTTConfiguration.checkTopicPrefix(value) } catch {
                throw bad("topic levels of letters, digits, '.', '_' or '-' separated by '/'")
            }
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }

    /// The destination's configuration, or nil when no `mqtt.url` is set.
    /// - Throws: `missingKey` for `mqtt.*` keys without a URL, a password file without a user, a
    ///   client certificate without its key (or the other way round); `badValue` for a file that
    ///   cannot be read (the password file's content is never shown), or TLS files with `mqtt://`.
    static func configuration(from values: [String: String], credentialsDirectory: String?) throws(ConfigurationError)
        -> MQTTConfiguration? {
        guard let url = values["mqtt.url"] else {
            if let stray = values.keys.sorted().first { throw .missingKey(key: "mqtt.url", because: stray) }
            return nil
        }
        let broker: MQTTBrokerURL
        do { broker = try MQTTBrokerURL(parsing: url) } catch {
            throw .badValue(key: "mqtt.url", value: url, expected: "mqtt://HOST[:PORT] or mqtts://HOST[:PORT]", at: nil)
        }
        var configuration = MQTTConfiguration(broker: broker, device: values["mqtt.device"] ?? MQTTConfiguration.defaultDevice())
        configuration.format = values["mqtt.format"].flatMap(MQTTFormat.init(rawValue:)) ?? .livelocd
        configuration.user = values["mqtt.user"]
        if let id = values["mqtt.client_id"] { configuration.clientID = id }
        configuration.qos = values["mqtt.qos"].flatMap(Int.init).flatMap(MQTTQoS.init(rawValue:)) ?? .atLeastOnce
        configuration.protocolVersion = values["mqtt.protocol"].flatMap(MQTTProtocolVersion.init(rawValue:)) ?? .v5
        if let prefix = values["mqtt.topic_prefix"] { configuration.topicPrefix = prefix }

        let credential = credentialsDirectory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "mqtt-password" }
        if let path = values["mqtt.password_file"] {
            guard configuration.user != nil else { throw .missingKey(key: "mqtt.user", because: "mqtt.password_file") }
            configuration.password = try password(from: path, key: "mqtt.password_file")
        } else if configuration.user != nil, let credential, access(credential, F_OK) == 0 {
            configuration.password = try password(from: credential, key: "mqtt.password_file")
        }

        let tlsKeys = ["mqtt.ca_file", "mqtt.client_cert", "mqtt.client_key"]
        if !broker.usesTLS, let tlsKey = tlsKeys.first(where: { values[$0] != nil }) {
            throw .badValue(key: "mqtt.url", value: url, expected: "an mqtts:// URL (\(tlsKey) is set)", at: nil)
        }
        switch (values["mqtt.client_cert"], values["mqtt.client_key"]) {
        case (.some, nil): throw .missingKey(key: "mqtt.client_key", because: "mqtt.client_cert")
        case (nil, .some): throw .missingKey(key: "mqtt.client_cert", because: "mqtt.client_key")
        default: break
        }
        for key in tlsKeys {
            guard let path = values[key] else { continue }
            guard access(path, R_OK) == 0 else {
                throw .badValue(key: key, value: path, expected: "a readable file (\(String(cString: strerror(errno))))", at: nil)
            }
        }
        configuration.caFile = values["mqtt.ca_file"]
        configuration.clientCertificate = values["mqtt.client_cert"]
        configuration.clientKey = values["mqtt.client_key"]
        return configuration
    }

    private static func password(from path: String, key: String) throws(ConfigurationError) -> String {
        do { return try MQTTConfiguration.loadPassword(fromFile: path) } catch {
            throw .badValue(key: key, value: path, expected: "a readable file with the password on its first line (\(error))", at: nil)
        }
    }
}
