import ArgumentParsing
import LiveLocation

/// `liveloc share`'s privacy options: `--precision METRES` and `--zone LAT,LON,RADIUS` (repeatable),
/// the command-line form of the daemon's `privacy.precision` and `privacy.zone`.
enum PrivacyOptions {
    static let options: [String: Arguments.Kind] = ["--precision": .value, "--zone": .repeatedValue]

    static let help = """
          --precision M       share positions snapped to a fixed grid of cells at most M metres across
                              (1-100000); accuracy is raised to the grid, altitude, speed and course
                              are left out (default: exact positions)
          --zone LAT,LON,R    inside this circle (degrees, degrees, metres) share only the zone's
                              centre with R as accuracy; repeatable (README.md, "Privacy")
        """

    /// The privacy filter the options describe. - Throws: `UsageError` naming the option.
    static func filter(_ arguments: Arguments) throws(UsageError) -> PrivacyFilter {
        let grid = try arguments.value("--precision", as: "metres from 1 to 100000") { text in
            Double(text).flatMap { PrivacyGrid(sizeMeters: $0) }
        }
        var zones: [PrivacyZone] = []
        for text in arguments.values("--zone") {
            guard let zone = PrivacyZone(argument: text) else {
                throw UsageError("invalid value '\(text)' for --zone: expected LAT,LON,RADIUS (latitude -90..90, "
                                 + "longitude -180..180, radius in metres 0 < r <= 100000)")
            }
            zones.append(zone)
        }
        return PrivacyFilter(grid: grid, zones: zones)
    }
}
