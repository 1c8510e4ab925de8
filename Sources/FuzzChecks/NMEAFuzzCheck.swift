import LiveLocation
import NMEA

/// What the NMEA decoder must hold on any bytes whatever: it does not crash, every fix it reports
/// is a real position (finite, latitude in [-90, 90], longitude in [-180, 180]), unknown values are
/// nil rather than NaN, course is in [0, 360), and the fixes do not depend on how the bytes were cut
/// into reads.
package enum NMEAFuzzCheck {
    /// Decodes `input` fed at once and fed in chunks (sizes from `InputChunking`); returns the
    /// invariants broken, empty when all hold.
    package static func violations(in input: UnsafeRawBufferPointer) -> [FuzzViolation] {
        let whole = decode(input, in: [0 ..< input.count])
        let chunked = decode(input, in: InputChunking(input))
        var violations = whole.flatMap(fixViolations)
        if whole != chunked {
            let index = zip(whole, chunked).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(whole.count, chunked.count)
            violations.append(FuzzViolation(
                "same fixes whatever the read boundaries",
                "fed at once: \(whole.count) fixes, in chunks: \(chunked.count); first difference at fix \(index)"))
        }
        return violations
    }

    /// `violations(in:)` for bytes in an array.
    package static func violations(in input: [UInt8]) -> [FuzzViolation] {
        input.withUnsafeBytes { violations(in: $0) }
    }

    static func decode(_ input: UnsafeRawBufferPointer, in chunks: some Sequence<Range<Int>>) -> [Fix] {
        var decoder = NMEADecoder()
        var fixes: [Fix] = []
        for chunk in chunks {
            decoder.feed(UnsafeRawBufferPointer(rebasing: input[chunk])) { fixes.append($0) }
        }
        decoder.finish { fixes.append($0) }
        _ = decoder.statistics
        return fixes
    }

    static func fixViolations(_ fix: Fix) -> [FuzzViolation] {
        var violations: [FuzzViolation] = []
        func check(_ holds: Bool, _ invariant: String) {
            if !holds { violations.append(FuzzViolation(invariant, "\(fix)")) }
        }
        check(fix.latitude.isFinite && (-90...90).contains(fix.latitude), "latitude finite in [-90, 90]")
        check(fix.longitude.isFinite && (-180...180).contains(fix.longitude), "longitude finite in [-180, 180]")
        let optionals: [(String, Double?)] = [
            ("altitudeMSLMeters", fix.altitudeMSLMeters), ("altitudeHAEMeters", fix.altitudeHAEMeters),
            ("speedMetersPerSecond", fix.speedMetersPerSecond), ("courseDegreesTrue", fix.courseDegreesTrue),
            ("horizontalAccuracyMeters", fix.horizontalAccuracyMeters), ("hdop", fix.hdop),
        ]
        for (name, value) in optionals {
            check(value.map(\.isFinite) ?? true, "\(name) nil or finite")
        }
        if let course = fix.courseDegreesTrue, course.isFinite {
            check((0 ..< 360).contains(course), "courseDegreesTrue in [0, 360)")
        }
        return violations
    }
}
