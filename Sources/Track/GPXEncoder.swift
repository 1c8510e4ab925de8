import LiveLocation

/// GPX 1.1 (https://www.topografix.com/GPX/1/1/): one `trk` named after the track, a `trkseg` per
/// continuous segment, a `trkpt` per fix with its elements in the schema's order (wptType: ele,
/// time, magvar, geoidheight, name, …, fix, sat, hdop, …, extensions). Speed and course, which GPX
/// 1.1 has no element for, go in Garmin's TrackPointExtension v2 (`gpxtpx:speed` in m/s,
/// `gpxtpx:course` in degrees true), which most GPX readers understand.
struct GPXEncoder: TrackEncoder {
    /// The track's `name`, if any.
    let name: String?
    private var inTrack = false
    private var inSegment = false

    init(name: String?) {
        self.name = name
    }

    func start(to output: inout [UInt8]) {
        output.appendText("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="livelocd" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd \
            http://www.garmin.com/xmlschemas/TrackPointExtension/v2 \
            https://www8.garmin.com/xmlschemas/TrackPointExtensionv2.xsd">

            """)
    }

    mutating func append(_ fix: Fix, segment: Int, startsSegment: Bool, to output: inout [UInt8]) {
        if !inTrack {
            inTrack = true
            output.appendText(" <trk>\n")
            if let name {
                output.appendText("  <name>")
                XMLText.appendEscaped(name, to: &output)
                output.appendText("</name>\n")
            }
        }
        if startsSegment {
            if inSegment { output.appendText("  </trkseg>\n") }
            output.appendText("  <trkseg>\n")
            inSegment = true
        }
        output.appendText("   <trkpt lat=\"")
        output.appendNumber(fix.latitude, fractionDigits: 9)
        output.appendText("\" lon=\"")
        output.appendNumber(fix.longitude, fractionDigits: 9)
        output.appendText("\">")
        if let altitude = fix.altitudeMSLMeters, altitude.isFinite {
            output.appendText("<ele>")
            output.appendNumber(altitude, fractionDigits: 3)
            output.appendText("</ele>")
        }
        output.appendText("<time>")
        output.appendTime(fix.time)
        output.appendText("</time>")
        if let msl = fix.altitudeMSLMeters, let hae = fix.altitudeHAEMeters, (hae - msl).isFinite {
            // The geoid's height above the ellipsoid, as GGA's geoidal separation.
            output.appendText("<geoidheight>")
            output.appendNumber(hae - msl, fractionDigits: 3)
            output.appendText("</geoidheight>")
        }
        output.appendText(fix.mode == .threeDimensional ? "<fix>3d</fix>" : "<fix>2d</fix>")
        if let satellites = fix.satellitesUsed, satellites >= 0 {
            output.appendText("<sat>")
            output.appendInteger(satellites)
            output.appendText("</sat>")
        }
        if let hdop = fix.hdop, hdop.isFinite {
            output.appendText("<hdop>")
            output.appendNumber(hdop, fractionDigits: 2)
            output.appendText("</hdop>")
        }
        let speed = fix.speedMetersPerSecond.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let course = Course.normalized(fix.courseDegreesTrue, fractionDigits: 3)
        if speed != nil || course != nil {
            output.appendText("<extensions><gpxtpx:TrackPointExtension>")
            if let speed {
                output.appendText("<gpxtpx:speed>")
                output.appendNumber(speed, fractionDigits: 3)
                output.appendText("</gpxtpx:speed>")
            }
            if let course {
                output.appendText("<gpxtpx:course>")
                output.appendNumber(course, fractionDigits: 3)
                output.appendText("</gpxtpx:course>")
            }
            output.appendText("</gpxtpx:TrackPointExtension></extensions>")
        }
        output.appendText("</trkpt>\n")
    }

    func finish(to output: inout [UInt8]) {
        if inSegment { output.appendText("  </trkseg>\n") }
        if inTrack { output.appendText(" </trk>\n") }
        output.appendText("</gpx>\n")
    }
}
