import JSONCoding
import LiveLocation

/// GeoJSON (RFC 7946): a FeatureCollection with one Feature per continuous segment, one per line.
/// A segment of two or more fixes is a LineString of `[longitude, latitude]` positions (longitude
/// first, WGS 84 degrees, 7 decimals: 1 cm); a segment of a single fix is a Point. Each Feature's
/// `properties` follow its geometry, so that the segment's end is known when they are written:
/// `name` (when given), `segment` (from 1), `fixes`, `startTime` and `endTime` (ISO 8601 UTC).
/// Altitudes are left out: RFC 7946 measures them from the ellipsoid, and mixing fixes with and
/// without one in a LineString is not allowed. Memory: the first fix of a segment is held until
/// the second decides LineString or Point.
struct GeoJSONEncoder: TrackEncoder {
    let name: String?
    private var wroteFeature = false
    /// The current segment: its number, its first fix while it is the only one, its count and times.
    private var segment = 0
    private var pendingFirst: Fix?
    private var fixes = 0
    private var startTime: Timestamp?
    private var endTime: Timestamp?

    init(name: String?) {
        self.name = name
    }

    func start(to output: inout [UInt8]) {
        output.appendText(#"{"type":"FeatureCollection","features":["#)
    }

    mutating func append(_ fix: Fix, segment: Int, startsSegment: Bool, to output: inout [UInt8]) {
        if startsSegment {
            closeSegment(to: &output)
            self.segment = segment
            pendingFirst = fix
            fixes = 1
            startTime = fix.time
            endTime = fix.time
            return
        }
        if let first = pendingFirst {
            openFeature(to: &output)
            output.appendText(#"{"type":"LineString","coordinates":["#)
            appendPosition(first, to: &output)
            pendingFirst = nil
        }
        output.appendText(",")
        appendPosition(fix, to: &output)
        fixes += 1
        endTime = fix.time
    }

    mutating func finish(to output: inout [UInt8]) {
        closeSegment(to: &output)
        output.appendText(wroteFeature ? "\n]}\n" : "]}\n")
    }

    private mutating func openFeature(to output: inout [UInt8]) {
        output.appendText(wroteFeature ? ",\n" : "\n")
        wroteFeature = true
        output.appendText(#"{"type":"Feature","geometry":"#)
    }

    /// Ends the current segment's Feature: its geometry (a Point when it had one fix), then its
    /// properties.
    private mutating func closeSegment(to output: inout [UInt8]) {
        guard let startTime, let endTime else { return }
        if let single = pendingFirst {
            openFeature(to: &output)
            output.appendText(#"{"type":"Point","coordinates":"#)
            appendPosition(single, to: &output)
            output.appendText("}")
            pendingFirst = nil
        } else {
            output.appendText("]}")
        }
        output.appendText(#","properties":{"#)
        if let name {
            output.appendText(#""name":"#)
            JSONText.appendString(name, to: &output)
            output.appendText(",")
        }
        output.appendText(#""segment":"#)
        output.appendInteger(segment)
        output.appendText(#","fixes":"#)
        output.appendInteger(fixes)
        output.appendText(#","startTime":""#)
        output.appendTime(startTime)
        output.appendText(#"","endTime":""#)
        output.appendTime(endTime)
        output.appendText(#""}}"#)
        self.startTime = nil
        self.endTime = nil
    }

    private func appendPosition(_ fix: Fix, to output: inout [UInt8]) {
        output.appendText("[")
        output.appendNumber(fix.longitude, fractionDigits: 7)
        output.appendText(",")
        output.appendNumber(fix.latitude, fractionDigits: 7)
        output.appendText("]")
    }
}
