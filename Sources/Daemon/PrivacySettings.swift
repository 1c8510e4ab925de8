import LiveLocation

/// The daemon's `privacy.*` keys: what every destination is told of a fix (see `PrivacyFilter`).
enum PrivacySettings {
    /// Key, value form and meaning, for `livelocd --help` and the documentation.
    static let keys: [(key: String, value: String, meaning: String)] = [
        ("privacy.precision", "METRES",
         "share positions snapped to a fixed grid of this size, 1-100000 (default off: exact positions)"),
        ("privacy.zone", "LAT,LON,RADIUS",
         "inside this circle (degrees, degrees, metres) share only its centre; repeatable, one zone each (default none)"),
    ]

    /// Keys that may be given more than once, each time adding a value (every other key may be
    /// given once).
    static let repeatableKeys: Set<String> = ["privacy.zone"]

    /// Applies one key to `privacy`. - Throws: `badValue` naming the key, `unknownKey`.
    static func set(_ key: String, _ value: String, in privacy: inout PrivacyFilter) throws(ConfigurationError) {
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "privacy.precision":
            if value == "off" { privacy.grid = nil; return }
            guard let metres = Double(value), let grid = PrivacyGrid(sizeMeters: metres) else {
                throw bad("metres from 1 to 100000, or off")
            }
            privacy.grid = grid
        case "privacy.zone":
            guard let zone = PrivacyZone(argument: value) else {
                throw bad("LAT,LON,RADIUS: latitude -90..90, longitude -180..180, radius in metres 0 < r <= 100000")
            }
            privacy.zones.append(zone)
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }
}
