/// A course over ground as receivers may give it (360 for north, or a value rounded up to 360 when
/// written with few digits) and as every output promises it: 0 ≤ course < 360.
package enum Course {
    /// `degrees` reduced to [0, 360) and rounded to `fractionDigits` decimals, the rounding kept in
    /// the range: 359.99 with one digit is 0, not 360.0. Nil for nil or a value that is not finite.
    package static func normalized(_ degrees: Double?, fractionDigits: Int) -> Double? {
        guard let degrees, degrees.isFinite else { return nil }
        var scale = 1.0
        for _ in 0..<max(0, fractionDigits) { scale *= 10 }
        let full = 360 * scale
        var units = (degrees * scale).rounded().truncatingRemainder(dividingBy: full)
        if units < 0 { units += full }
        if units >= full { units = 0 }
        return units / scale
    }
}
