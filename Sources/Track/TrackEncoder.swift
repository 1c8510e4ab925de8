import LiveLocation

/// One format's writer: a header, each fix as it comes, a trailer. Constant memory: an encoder
/// keeps at most one fix.
protocol TrackEncoder: Sendable {
    /// Everything before the first fix.
    mutating func start(to output: inout [UInt8])
    /// One fix; `startsSegment` is true for the first fix of each continuous segment, numbered
    /// `segment` from 1.
    mutating func append(_ fix: Fix, segment: Int, startsSegment: Bool, to output: inout [UInt8])
    /// Everything after the last fix.
    mutating func finish(to output: inout [UInt8])
}

extension Array where Element == UInt8 {
    mutating func appendText(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func appendNumber(_ value: Double, fractionDigits: Int) {
        FixedPoint.append(value, fractionDigits: fractionDigits, to: &self)
    }

    mutating func appendInteger(_ value: Int) {
        append(contentsOf: String(value).utf8)
    }

    mutating func appendTime(_ time: Timestamp) {
        time.appendISO8601(to: &self)
    }
}
