#if canImport(Glibc)
import Glibc
#endif

/// The MQTT destination's settings as `mqtt.*` keys with text values: the daemon's configuration
/// keys, and `liveloc share`'s `--mqtt…` options (each sets the key of the same name). One copy of
/// the checks for both; each turns `MQTTSettingError` into its own words (a key, an option).
package enum MQTTSettingKeys {
    /// Key, value form and meaning, for `--help` and the documentation.
    package static let keys: [(key: String, value: String, meaning: String)] = [
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
        ("mqtt.commands", "true|false", "take start and stop from PREFIX/DEVICE/command; the broker's ACL decides who may publish there (default false; the daemon only)"),
    ]

    /// Checks one value.
    /// - Throws: `MQTTSettingError.badValue` naming the key, `.unknownKey` for another `mqtt.` key.
    package static func check(_ key: String, _ value: String) throws(MQTTSettingError) {
        func bad(_ expected: String) -> MQTTSettingError { .badValue(key: key, value: value, expected: expected) }
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
        case "mqtt.commands":
            guard flag(value) != nil else { throw bad("true or false") }
        case "mqtt.topic_prefix":
            do { try MQTTConfiguration.checkTopicPrefix(value) } catch {
                throw bad("topic levels of letters, digits, '.', '_' or '-' separated by '/'")
            }
        default:
            throw .unknownKey(key)
        }
    }

    /// The destination's configuration from checked values, or nil when no `mqtt.url` is set.
    /// Reads the password file (or `CREDENTIALS_DIRECTORY/mqtt-password` when a user is set and no
    /// file is), and checks that the TLS files can be read.
    /// - Throws: `missingKey` for `mqtt.*` keys without a URL, a password file without a user, a
    ///   client certificate without its key (or the other way round); `badValue` for a file that
    ///   cannot be read (the password file's content is never shown), or TLS files with `mqtt://`.
    package static func configuration(from values: [String: String], credentialsDirectory: String?)
        throws(MQTTSettingError) -> MQTTConfiguration? {
        guard let url = values["mqtt.url"] else {
            if let stray = values.keys.sorted().first { throw .missingKey("mqtt.url", because: stray) }
            return nil
        }
        for (key, value) in values { try check(key, value) }
        let broker: MQTTBrokerURL
        do { broker = try MQTTBrokerURL(parsing: url) } catch {
            throw .badValue(key: "mqtt.url", value: url, expected: "mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        }
        var configuration = MQTTConfiguration(broker: broker, device: values["mqtt.device"] ?? MQTTConfiguration.defaultDevice())
        configuration.format = values["mqtt.format"].flatMap(MQTTFormat.init(rawValue:)) ?? .livelocd
        configuration.user = values["mqtt.user"]
        if let id = values["mqtt.client_id"] { configuration.clientID = id }
        configuration.qos = values["mqtt.qos"].flatMap(Int.init).flatMap(MQTTQoS.init(rawValue:)) ?? .atLeastOnce
        configuration.protocolVersion = values["mqtt.protocol"].flatMap(MQTTProtocolVersion.init(rawValue:)) ?? .v5
        if let prefix = values["mqtt.topic_prefix"] { configuration.topicPrefix = prefix }
        configuration.commands = values["mqtt.commands"].flatMap(flag) ?? false

        let credential = credentialsDirectory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + "mqtt-password" }
        if let path = values["mqtt.password_file"] {
            guard configuration.user != nil else { throw .missingKey("mqtt.user", because: "mqtt.password_file") }
            configuration.password = try password(from: path)
        } else if configuration.user != nil, let credential, access(credential, F_OK) == 0 {
            configuration.password = try password(from: credential)
        }

        let tlsKeys = ["mqtt.ca_file", "mqtt.client_cert", "mqtt.client_key"]
        if !broker.usesTLS, let tlsKey = tlsKeys.first(where: { values[$0] != nil }) {
            throw .badValue(key: "mqtt.url", value: url, expected: "an mqtts:// URL (\(tlsKey) is set)")
        }
        switch (values["mqtt.client_cert"], values["mqtt.client_key"]) {
        case (.some, nil): throw .missingKey("mqtt.client_key", because: "mqtt.client_cert")
        case (nil, .some): throw .missingKey("mqtt.client_cert", because: "mqtt.client_key")
        default: break
        }
        for key in tlsKeys {
            guard let path = values[key] else { continue }
            guard access(path, R_OK) == 0 else {
                throw .badValue(key: key, value: path, expected: "a readable file (\(String(cString: strerror(errno))))")
            }
        }
        configuration.caFile = values["mqtt.ca_file"]
        configuration.clientCertificate = values["mqtt.client_cert"]
        configuration.clientKey = values["mqtt.client_key"]
        return configuration
    }

    private static func flag(_ text: String) -> Bool? {
        switch text {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    private static func password(from path: String) throws(MQTTSettingError) -> String {
        do { return try MQTTConfiguration.loadPassword(fromFile: path) } catch {
            throw .badValue(key: "mqtt.password_file", value: path,
                            expected: "a readable file with the password on its first line (\(error))")
        }
    }
}
