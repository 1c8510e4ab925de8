#if canImport(Glibc)
import Glibc
#endif

import Delivery
import Settings
import SystemIO

extension MQTTDestination {
    /// The MQTT destination's settings (`mqtt.*`; `liveloc share --mqtt…`) and how it is built.
    package static let kind = DestinationKind(
        name: "mqtt", title: "MQTT",
        about: "Every event published to an MQTT broker (libmosquitto, MQTT 5 or 3.1.1, TLS with mqtts://), as livelocd's own JSON, OwnTracks or a Home Assistant device tracker. The password is a file's first line, or the systemd credential 'mqtt-password' when mqtt.user is set.",
        settings: MQTTSettings.descriptions.map { description in
            DestinationSetting(description) { value throws(SettingError) in try MQTTSettings.check(description.key, value) }
        },
        configure: { values, environment throws(SettingError) in
            guard let configuration = try MQTTSettings.configuration(from: values, credentialsDirectory: environment.credentialsDirectory) else {
                return nil
            }
            return ConfiguredDestination(kind: "mqtt") { context in
                var configuration = configuration
                configuration.reportsBattery = context.reportsBattery
                configuration.shareLinks = context.shareLinks
                if !context.inDaemon { configuration.commands = false }
                return try MQTTDestination(configuration: configuration, log: context.log)
            }
        })
}

/// The MQTT destination's settings as `mqtt.*` keys with text values: the daemon's configuration
/// keys, and `liveloc share`'s `--mqtt…` options (each sets the key of the same name). One copy of
/// the checks for both.
enum MQTTSettings {
    static let descriptions: [SettingDescription] = [
        SettingDescription("mqtt.url", "URL", example: "mqtt://127.0.0.1:1883",
                           "publish events to this broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (default: no MQTT)",
                           shareOption: "--mqtt"),
        SettingDescription("mqtt.format", "livelocd|owntracks|homeassistant", default: "livelocd",
                           "the topics and payloads (see README)", shareOption: "--mqtt-format"),
        SettingDescription("mqtt.device", "NAME", example: "van",
                           "this device's name in topics: letters, digits, . _ - (default: the host name)", shareOption: "--mqtt-device"),
        SettingDescription("mqtt.user", "NAME", example: "van",
                           "the broker user name, also OwnTracks' user (default: none; OwnTracks user livelocd)", shareOption: "--mqtt-user"),
        SettingDescription("mqtt.password_file", "PATH", example: "/etc/livelocd/mqtt-password",
                           "the broker password, the file's first line (default: the systemd credential 'mqtt-password')",
                           shareOption: "--mqtt-password-file", namesSecretFile: true),
        SettingDescription("mqtt.ca_file", "PATH", example: "/etc/livelocd/broker-ca.pem",
                           "trust this CA bundle for mqtts:// (default: the system store, /etc/ssl/certs)", shareOption: "--mqtt-ca-file"),
        SettingDescription("mqtt.client_cert", "PATH", example: "/etc/livelocd/client.pem",
                           "a client certificate for mqtts:// (PEM; with its key)", shareOption: "--mqtt-client-cert"),
        SettingDescription("mqtt.client_key", "PATH", example: "/etc/livelocd/client.key",
                           "the client certificate's key (PEM, not passphrase-protected)", shareOption: "--mqtt-client-key",
                           namesSecretFile: true),
        SettingDescription("mqtt.client_id", "ID", example: "livelocd-van",
                           "the MQTT client id, stable across restarts (default livelocd-DEVICE)", shareOption: "--mqtt-client-id"),
        SettingDescription("mqtt.qos", "0|1|2", default: "1", "MQTT quality of service of every publish", shareOption: "--mqtt-qos"),
        SettingDescription("mqtt.protocol", "5|3.1.1", default: "5", "the MQTT version (3.1.1 has no message expiry)",
                           shareOption: "--mqtt-protocol"),
        SettingDescription("mqtt.topic_prefix", "PREFIX", default: "livelocd",
                           "the first topic level(s) of livelocd's own topics (events, location, the tracker's state and attributes, commands); Home Assistant's discovery topics take mqtt.discovery_prefix", shareOption: "--mqtt-topic-prefix"),
        SettingDescription("mqtt.discovery_prefix", "PREFIX", default: MQTTConfiguration.defaultDiscoveryPrefix,
                           "Home Assistant's MQTT discovery prefix, as its MQTT integration is set (mqtt.format = homeassistant)",
                           shareOption: "--mqtt-discovery-prefix"),
        SettingDescription("mqtt.commands", "true|false", default: "false",
                           "Home Assistant's buttons Share 15 min, Share 1 h, Share 8 h, Stop sharing, +15 min and +1 h (mqtt.format = homeassistant), and start, stop and extend taken from PREFIX/DEVICE/command in every format; the broker's ACL decides who may press them (the daemon only: liveloc share takes no commands)"),
    ]

    /// Checks one value (a TLS file: that it can be read now, so that a missing one stops start-up).
    /// - Throws: `SettingError.badValue` naming the key, `.unknownKey` for another `mqtt.` key.
    static func check(_ key: String, _ value: String) throws(SettingError) {
        func bad(_ expected: String) -> SettingError { .badValue(key: key, value: value, expected: expected) }
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
        case "mqtt.password_file":
            try DestinationSetting.checkAbsolutePath(key, value)
        case "mqtt.ca_file", "mqtt.client_cert", "mqtt.client_key":
            try DestinationSetting.checkReadableFile(key, value)
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
        case "mqtt.topic_prefix", "mqtt.discovery_prefix":
            do { try MQTTConfiguration.checkTopicPrefix(value) } catch {
                throw bad("topic levels of letters, digits, '.', '_' or '-' separated by '/'")
            }
        default:
            throw .unknownKey(key)
        }
    }

    /// The destination's configuration from checked values, or nil when no `mqtt.url` is set.
    /// Reads the password file (or `CREDENTIALS_DIRECTORY/mqtt-password` when a user is set and no
    /// file is). The values are checked again (the TLS files can be read: `check`).
    /// - Throws: `missingKey` for `mqtt.*` keys without a URL, a password file without a user, a
    ///   client certificate without its key (or the other way round); `badValue` for a file that
    ///   cannot be read (the password file's content is never shown), or TLS files with `mqtt://`.
    static func configuration(from values: [String: String], credentialsDirectory: String?)
        throws(SettingError) -> MQTTConfiguration? {
        guard let url = values["mqtt.url"] else { return nil }
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
        if let prefix = values["mqtt.discovery_prefix"] { configuration.discoveryPrefix = prefix }
        configuration.commands = values["mqtt.commands"].flatMap(flag) ?? false

        let credential = Credentials.path("mqtt-password", in: credentialsDirectory)
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

    private static func password(from path: String) throws(SettingError) -> String {
        do { return try MQTTConfiguration.loadPassword(fromFile: path) } catch {
            throw .badValue(key: "mqtt.password_file", value: path,
                            expected: "a readable file with the password on its first line (\(error))")
        }
    }
}
