import JSONCoding
import LiveLocation

/// One gpsd-style TPV JSON object per fix and line (`Fix.tpvJSONLineBytes`): what `liveloc decode`
/// has always printed. No header, no trailer, no segments.
struct JSONLinesEncoder: TrackEncoder {
    func start(to output: inout [UInt8]) {}

    func append(_ fix: Fix, segment: Int, startsSegment: Bool, to output: inout [UInt8]) {
        fix.appendTPVJSONLine(to: &output)
    }

    func finish(to output: inout [UInt8]) {}
}
