import MQTT

/// The daemon's `mqtt.*` keys: each value checked as it is set (so a bad one names its file and
/// line), and the whole turned into the MQTT destination's configuration at validation. The checks
/// themselves are the MQTT module's (`MQTTSettingKeys`), shared with `liveloc share --mqtt…`.
enum MQTTSettings {
    /// Key, value form and meaning, for `livelocd --help` and the documentation.
    static var keys: [(key: String, value: String, meaning: String)] { MQTTSettingKeys.keys }

    /// Checks one value. - Throws: `badValue` naming the key, `unknownKey` for another `mqtt.` key.
    static func check(_ key: String, _ value: String) throws(ConfigurationError) {
        do { try MQTTSettingKeys.check(key, value) } catch { throw configurationError(error) }
    }

    /// The destination's configuration, or nil when no `mqtt.url` is set.
    /// - Throws: `ConfigurationError` naming the key (see `MQTTSettingKeys.configuration`).
    static func configuration(from values: [String: String], credentialsDirectory: String?) throws(ConfigurationError)
        -> MQTTConfiguration? {
        do { return try MQTTSettingKeys.configuration(from: values, credentialsDirectory: credentialsDirectory) } catch {
            throw configurationError(error)
        }
    }

    private static func configurationError(_ error: MQTTSettingError) -> ConfigurationError {
        switch error {
        case .badValue(let key, let value, let expected): .badValue(key: key, value: value, expected: expected, at: nil)
        case .missingKey(let key, let because): .missingKey(key: key, because: because)
        case .unknownKey(let key): .unknownKey(key: key, at: nil)
        }
    }
}
