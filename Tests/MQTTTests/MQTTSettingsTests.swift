import Daemon
import Delivery
import Foundation
@testable import MQTT
import Testing
import TestSupport

/// The daemon's `mqtt.*` keys: defaults, every key's value checked with a message naming the key,
/// and what only the whole can tell (a URL, a user for a password, TLS files with mqtts://).
@Suite("MQTT configuration keys")
struct MQTTSettingsTests {
    func configuration(_ pairs: [(String, String)], credentials: String? = nil) throws -> MQTTConfiguration? {
        var daemon = DaemonConfiguration(environment: [:])
        for (key, value) in pairs { try daemon.set(key, to: value) }
        let values = daemon.destinationSettings.filter { $0.key.hasPrefix("mqtt.") }
        do {
            // The kind's own checks first (its main key's, DestinationKind.configure), as the daemon's.
            guard try MQTTDestination.kind.configure(values, SettingEnvironment(credentialsDirectory: credentials)) != nil else { return nil }
            return try MQTTSettings.configuration(from: values, credentialsDirectory: credentials)
        } catch {
            throw ConfigurationError(error)
        }
    }

    @Test func defaultsAreLivelocdFormatQoS1MQTT5AndAClientIDFromTheDevice() throws {
        let mqtt = try #require(try configuration([("mqtt.url", "mqtt://broker.example"), ("mqtt.device", "van-7")]))
        #expect(mqtt.broker == MQTTBrokerURL(host: "broker.example", port: 1883, usesTLS: false))
        #expect(mqtt.format == .livelocd && mqtt.qos == .atLeastOnce && mqtt.protocolVersion == .v5)
        #expect(mqtt.topicPrefix == "livelocd" && mqtt.clientID == "livelocd-van-7")
        #expect(mqtt.user == nil && mqtt.password == nil && mqtt.caFile == nil)
        #expect(!mqtt.commands)  // commands are taken only when asked for
        #expect(try configuration([]) == nil)
        // The device defaults to the host name, made a topic level.
        let host = try #require(try configuration([("mqtt.url", "mqtts://[::1]")]))
        #expect(!host.device.isEmpty && !host.device.contains("/"))
        #expect(host.broker == MQTTBrokerURL(host: "::1", port: 8883, usesTLS: true))
    }

    @Test func everyKeyIsSet() throws {
        let directory = try Paths.temporaryDirectory("mqtt-settings")
        defer { try? FileManager.default.removeItem(at: directory) }
        let password = directory.appendingPathComponent("password")
        try "s3cret pass\nignored second line\n".write(to: password, atomically: true, encoding: .utf8)
        chmod(password.path, 0o600)
        let mqtt = try #require(try configuration([
            ("mqtt.url", "mqtts://broker:9883"), ("mqtt.format", "homeassistant"), ("mqtt.device", "van"),
            ("mqtt.user", "jane@example.org"), ("mqtt.password_file", password.path), ("mqtt.ca_file", password.path),
            ("mqtt.client_cert", password.path), ("mqtt.client_key", password.path), ("mqtt.client_id", "van-client"),
            ("mqtt.qos", "2"), ("mqtt.protocol", "3.1.1"), ("mqtt.topic_prefix", "fleet/eu"), ("mqtt.commands", "true"),
        ]))
        #expect(mqtt.broker.port == 9883 && mqtt.format == .homeassistant && mqtt.device == "van")
        #expect(mqtt.user == "jane@example.org" && mqtt.password == "s3cret pass")
        #expect(mqtt.caFile == password.path && mqtt.clientCertificate == password.path && mqtt.clientKey == password.path)
        #expect(mqtt.clientID == "van-client" && mqtt.qos == .exactlyOnce && mqtt.protocolVersion == .v311)
        #expect(mqtt.topicPrefix == "fleet/eu" && mqtt.commands)
        #expect(!mqtt.description.contains("s3cret"))
    }

    @Test func thePasswordComesFromTheSystemdCredentialWhenNoFileIsSet() throws {
        let directory = try Paths.temporaryDirectory("mqtt-credentials")
        defer { try? FileManager.default.removeItem(at: directory) }
        try "from-credential\n".write(to: directory.appendingPathComponent("mqtt-password"), atomically: true, encoding: .utf8)
        chmod(directory.appendingPathComponent("mqtt-password").path, 0o400)
        let mqtt = try configuration([("mqtt.url", "mqtt://b"), ("mqtt.user", "van")], credentials: directory.path)
        #expect(mqtt?.password == "from-credential")
        #expect(try configuration([("mqtt.url", "mqtt://b")], credentials: directory.path)?.password == nil)
    }

    @Test(arguments: [
        ("mqtt.url", "http://broker", "the scheme must be mqtt:// or mqtts://"),
        ("mqtt.url", "mqtt://jane:pw@broker", "credentials do not go in the URL"),
        ("mqtt.url", "mqtt://broker:0", "the port must be 1-65535"),
        ("mqtt.format", "json", "livelocd, owntracks or homeassistant"),
        ("mqtt.device", "van/7", "letters, digits"),
        ("mqtt.device", "van+", "letters, digits"),
        ("mqtt.qos", "3", "0, 1 or 2"),
        ("mqtt.protocol", "3", "5 or 3.1.1"),
        ("mqtt.topic_prefix", "a//b", "topic levels"),
        ("mqtt.topic_prefix", "#", "topic levels"),
        ("mqtt.client_id", "has space", "printable ASCII"),
        ("mqtt.ca_file", "relative.pem", "an absolute path"),
        ("mqtt.ca_file", "/nonexistent/ca.pem", "a readable file (No such file or directory)"),
        ("mqtt.client_cert", "/nonexistent/client.pem", "a readable file (No such file or directory)"),
        ("mqtt.client_key", "/etc", "a readable file (Is a directory)"),
        ("mqtt.commands", "maybe", "true or false"),
    ])
    func aBadValueIsRefusedNamingTheKey(_ key: String, _ value: String, _ expected: String) {
        var daemon = DaemonConfiguration(environment: [:])
        #expect {
            try daemon.set(key, to: value)
        } throws: { error in
            let text = "\(error)"
            return text.contains("'\(key)'") && text.contains(expected) && !text.contains("\n")
        }
    }

    @Test func whatOnlyTheWholeCanTellIsRefusedNamingTheKey() throws {
        func failure(_ pairs: [(String, String)]) -> String {
            do { _ = try configuration(pairs); return "no error" } catch { return "\(error)" }
        }
        #expect(failure([("mqtt.format", "owntracks")]) == "mqtt.format needs 'mqtt.url'")
        #expect(failure([("mqtt.url", "mqtt://b"), ("mqtt.password_file", "/etc/hostname")])
                == "mqtt.password_file needs 'mqtt.user'")
        #expect(failure([("mqtt.url", "mqtt://b"), ("mqtt.ca_file", "/etc/hostname")]).contains("an mqtts:// URL (mqtt.ca_file is set)"))
        #expect(failure([("mqtt.url", "mqtts://b"), ("mqtt.client_cert", "/etc/hostname")])
                == "mqtt.client_cert needs 'mqtt.client_key'")
        #expect(failure([("mqtt.url", "mqtts://b"), ("mqtt.ca_file", "/nonexistent.pem")]).contains("key 'mqtt.ca_file'"))
        let password = failure([("mqtt.url", "mqtt://b"), ("mqtt.user", "u"), ("mqtt.password_file", "/nonexistent")])
        #expect(password.contains("key 'mqtt.password_file'") && password.contains("No such file"))
    }

    @Test func aPasswordFileOthersMayReadIsRefusedNamingTheKeyNotTheContent() throws {
        let directory = try Paths.temporaryDirectory("mqtt-password")
        defer { try? FileManager.default.removeItem(at: directory) }
        let password = directory.appendingPathComponent("password")
        try "visible-secret\n".write(to: password, atomically: true, encoding: .utf8)
        chmod(password.path, 0o644)
        #expect {
            try configuration([("mqtt.url", "mqtt://b"), ("mqtt.user", "u"), ("mqtt.password_file", password.path)])
        } throws: { error in
            let text = "\(error)"
            return text.contains("'mqtt.password_file'") && text.contains("chmod 600") && !text.contains("visible-secret")
        }
    }

    @Test func anUnknownMQTTKeyIsAnUnknownKey() {
        var daemon = DaemonConfiguration(environment: [:])
        #expect(throws: ConfigurationError.unknownKey(key: "mqtt.hots", at: nil)) { try daemon.set("mqtt.hots", to: "x") }
    }

    @Test func brokerURLsParse() throws {
        #expect(try MQTTBrokerURL(parsing: "mqtt://10.0.0.2:1884/") == MQTTBrokerURL(host: "10.0.0.2", port: 1884, usesTLS: false))
        #expect(try MQTTBrokerURL(parsing: "mqtts://[fe80::1]:8884").description == "mqtts://[fe80::1]:8884")
        #expect(throws: MQTTConfigurationError.self) { try MQTTBrokerURL(parsing: "mqtt://broker/topic") }
        #expect(throws: MQTTConfigurationError.self) { try MQTTBrokerURL(parsing: "mqtt://") }
    }
}
