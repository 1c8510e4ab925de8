import ArgumentParsing
import MQTT

/// `liveloc share --mqtt URL [--mqtt-format F] [--mqtt-device NAME] …`: the MQTT destination of a
/// foreground share. Each option is the daemon's `mqtt.*` key of the same name and is checked by
/// the same code (`MQTTSettingKeys`), so that a value is good or bad in both places alike.
enum MQTTOptions {
    /// Option → the daemon key it sets.
    static let keys: [(option: String, key: String)] = [
        ("--mqtt", "mqtt.url"), ("--mqtt-format", "mqtt.format"), ("--mqtt-device", "mqtt.device"),
        ("--mqtt-user", "mqtt.user"), ("--mqtt-password-file", "mqtt.password_file"),
        ("--mqtt-ca-file", "mqtt.ca_file"), ("--mqtt-client-cert", "mqtt.client_cert"),
        ("--mqtt-client-key", "mqtt.client_key"), ("--mqtt-client-id", "mqtt.client_id"),
        ("--mqtt-qos", "mqtt.qos"), ("--mqtt-protocol", "mqtt.protocol"), ("--mqtt-topic-prefix", "mqtt.topic_prefix"),
    ]

    static let options: [String: Arguments.Kind] = Dictionary(uniqueKeysWithValues: keys.map { ($0.option, .value) })

    static let help = """
          --mqtt URL          also publish every event to an MQTT broker: mqtt://HOST[:PORT] or
                              mqtts://HOST[:PORT] (formats, topics and delivery in README.md)
          --mqtt-format F     livelocd (default), owntracks or homeassistant
          --mqtt-device NAME  this device's name in topics (default: the host name)
          --mqtt-user NAME    the broker user name (also OwnTracks' user)
          --mqtt-password-file FILE    the broker password, the file's first line (never on the command line)
          --mqtt-ca-file FILE          trust this CA bundle for mqtts:// instead of the system store
          --mqtt-client-cert FILE, --mqtt-client-key FILE   a client certificate and its key (PEM)
          --mqtt-client-id ID, --mqtt-qos 0|1|2, --mqtt-protocol 5|3.1.1, --mqtt-topic-prefix P
                              as the daemon's mqtt.* keys (defaults livelocd-DEVICE, 1, 5, livelocd)
        """

    /// The destination's configuration when `--mqtt` is given.
    /// - Throws: `UsageError` naming the option for a bad value or an MQTT option without `--mqtt`;
    ///   `CommandFailure` (status 2) for a file that cannot be read.
    static func configuration(_ arguments: Arguments) throws -> MQTTConfiguration? {
        guard arguments.has("--mqtt") else {
            if let stray = keys.first(where: { arguments.has($0.option) }) { throw UsageError("\(stray.option) needs --mqtt URL") }
            return nil
        }
        var values: [String: String] = [:]
        for (option, key) in keys {
            guard let value = arguments.value(option) else { continue }
            do { try MQTTSettingKeys.check(key, value) } catch {
                guard case .badValue(_, _, let expected) = error else { throw UsageError("\(option): \(error)") }
                throw UsageError("\(option): invalid value '\(value)': expected \(expected)")
            }
            values[key] = value
        }
        do {
            return try MQTTSettingKeys.configuration(from: values, credentialsDirectory: nil)
        } catch {
            // In the command's words: the options' names for the keys'.
            var text = "\(error)"
            for (option, key) in keys.sorted(by: { $0.key.count > $1.key.count }) {
                text = text.replacing("'\(key)'", with: option).replacing(key, with: option)
            }
            throw CommandFailure(text, exitStatus: 2)
        }
    }
}
