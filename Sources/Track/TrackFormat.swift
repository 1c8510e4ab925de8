/// The text formats a track is written in.
package enum TrackFormat: String, Sendable, CaseIterable, Codable {
    /// One gpsd-style TPV JSON object per fix and line: `liveloc decode`'s output.
    case json
    /// GPX 1.1: one `trk`, a `trkseg` per continuous segment, a `trkpt` per fix.
    case gpx
    /// GeoJSON (RFC 7946): a FeatureCollection with a LineString Feature per continuous segment.
    case geojson
    /// Comma-separated values with a header line, one fix per line.
    case csv

    /// Parses the command-line spelling: `json`, `gpx`, `geojson` or `csv`.
    package init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// The spellings, for help texts and errors: `json|gpx|geojson|csv`.
    package static var choices: String { allCases.map(\.rawValue).joined(separator: "|") }
}
