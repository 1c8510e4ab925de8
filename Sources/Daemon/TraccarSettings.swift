import Traccar

/// The daemon's `traccar.*` keys: each value checked as it is set, and the pair turned into the
/// Traccar destination's configuration at validation.
enum TraccarSettings {
    /// Key, value form and meaning, for `livelocd --help` and the documentation.
    static let keys: [(key: String, value: String, meaning: String)] = [
        ("traccar.url", "URL", "send every position to this Traccar server's OsmAnd port, e.g. http://HOST:5055 (default: no Traccar)"),
        ("traccar.device_id", "ID", "the device's identifier in Traccar (required with traccar.url)"),
    ]

    /// Checks one value. - Throws: `badValue` naming the key.
    static func check(_ key: String, _ value: String) throws(ConfigurationError) {
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "traccar.url":
            guard (try? TraccarConfiguration(url: value, deviceID: "x")) != nil else { throw bad("an http:// or https:// URL") }
        case "traccar.device_id":
            guard (try? TraccarConfiguration(url: "http://localhost", deviceID: value)) != nil else {
                throw bad("1-128 printable characters without spaces")
            }
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }

    /// The destination's configuration, or nil when neither key is set.
    /// - Throws: `missingKey` when only one of the two is set.
    static func configuration(from values: [String: String]) throws(ConfigurationError) -> TraccarConfiguration? {
        switch (values["traccar.url"], values["traccar.device_id"]) {
        case (nil, nil): return nil
        case (nil, _): throw .missingKey(key: "traccar.url", because: "traccar.device_id")
        case (_, nil): throw .missingKey(key: "traccar.device_id", because: "traccar.url")
        case (let url?, let device?):
            do { return try TraccarConfiguration(url: url, deviceID: device) } catch {
                throw .badValue(key: "traccar.url", value: url, expected: "\(error)", at: nil)
            }
        }
    }
}
