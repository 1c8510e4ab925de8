/// Conversions of numbers from outside (a server's answer, a header, a setting, an argument, a
/// receiver's field) to integers and durations that cannot trap: Swift's `Int64(someDouble)` and
/// integer arithmetic stop the process on a value out of range, so every such number goes through
/// one of these, which clamp instead.

extension Duration {
    /// The longest wait a far end's answer is read as (a `Retry-After` header, Telegram's
    /// `retry_after`): one day. A longer ask, however absurd (`1e19`), is read as this; the
    /// destination's retry policy then waits at most its own `maxRetryAfter`.
    package static let longestServerWait = Duration.seconds(86_400)

    /// The longest duration made from an outside number of seconds by default: 100 years.
    package static let longestFromOutside = Duration.seconds(3_200_000_000)

    /// `seconds` rounded to the nearest millisecond and clamped to `0...maximum`; nil for NaN.
    /// Infinity is `maximum`, a negative number zero.
    package init?(clampingSeconds seconds: Double, maximum: Duration = .longestFromOutside) {
        guard !seconds.isNaN else { return nil }
        let maximumMilliseconds = maximum.wholeMilliseconds
        let milliseconds = (seconds * 1000).rounded()
        if milliseconds >= Double(maximumMilliseconds) {
            self = .milliseconds(maximumMilliseconds)
        } else if milliseconds <= 0 {
            self = .zero
        } else {
            self = .milliseconds(Int64(milliseconds))
        }
    }

    /// This duration in whole milliseconds, rounded toward zero; clamped to ±285 million years (a
    /// duration made from an absurd number does not trap).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let limit: Int64 = 9_000_000_000_000_000 / 1000  // seconds: 285 million years
        return min(max(seconds, -limit), limit) * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension Int {
    /// `value` rounded to the nearest integer, clamped to Int's range (nil for NaN).
    package init?(clampingRounded value: Double) {
        guard !value.isNaN else { return nil }
        let rounded = value.rounded()
        if rounded >= 9.0e18 { self = .max } else if rounded <= -9.0e18 { self = .min } else { self = Int(rounded) }
    }
}
