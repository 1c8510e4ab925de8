import LiveLocation

/// The daemon's `privacy.*` keys (described in `DaemonSettings`): what every destination is told of a fix (see `PrivacyFilter`).
enum PrivacySettings {
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
