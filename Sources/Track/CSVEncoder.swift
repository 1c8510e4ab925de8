import LiveLocation

/// Comma-separated values: a header line, then one line per fix (lines end with LF; no field ever
/// needs quoting). An unknown value is an empty field.
///
/// Columns: `time` (ISO 8601 UTC, ms), `latitude`, `longitude` (WGS 84 degrees), `altitude_msl`,
/// `altitude_hae` (metres above mean sea level / the ellipsoid), `speed` (m/s), `course` (degrees
/// true), `accuracy` (metres, 95 %), `hdop`, `satellites`, `mode` (2 or 3), `segment` (from 1; a new
/// one after a gap).
struct CSVEncoder: TrackEncoder {
    static let header: StaticString =
        "time,latitude,longitude,altitude_msl,altitude_hae,speed,course,accuracy,hdop,satellites,mode,segment\n"

    func start(to output: inout [UInt8]) {
        output.appendText(Self.header)
    }

    func append(_ fix: Fix, segment: Int, startsSegment: Bool, to output: inout [UInt8]) {
        output.appendTime(fix.time)
        output.appendText(",")
        output.appendNumber(fix.latitude, fractionDigits: 9)
        output.appendText(",")
        output.appendNumber(fix.longitude, fractionDigits: 9)
        for (value, digits) in [(fix.altitudeMSLMeters, 3), (fix.altitudeHAEMeters, 3), (fix.speedMetersPerSecond, 3),
                                (Course.normalized(fix.courseDegreesTrue, fractionDigits: 3), 3), (fix.horizontalAccuracyMeters, 3), (fix.hdop, 2)] {
            output.appendText(",")
            if let value { output.appendNumber(value, fractionDigits: digits) }
        }
        output.appendText(",")
        if let satellites = fix.satellitesUsed { output.appendInteger(satellites) }
        output.appendText(",")
        output.appendInteger(fix.mode.rawValue)
        output.appendText(",")
        output.appendInteger(segment)
        output.appendText("\n")
    }

    func finish(to output: inout [UInt8]) {}
}
