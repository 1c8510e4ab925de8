/// Decimal text of a number in fixed point: a given number of fraction digits, trailing zeros
/// trimmed, no exponent (`48.1405925`, `-0.5`, `519`). The one number writer of every text format
/// livelocd produces (JSON lines, GPX, GeoJSON, CSV).
package enum FixedPoint {
    /// The most bytes `write` produces.
    package static let maximumLength = 42

    /// Whether `value` has a fixed-point form with `fractionDigits` (finite, and small enough).
    @inline(__always)
    package static func fits(_ value: Double, fractionDigits: Int) -> Bool {
        units(value, fractionDigits: fractionDigits) != nil
    }

    /// `|value|` in units of 10^-fractionDigits, rounded (half away from zero); nil when `value`
    /// does not fit.
    @inline(__always)
    package static func units(_ value: Double, fractionDigits: Int) -> UInt64? {
        guard value.isFinite else { return nil }
        let scaled = (abs(value) * Double(powerOfTen(fractionDigits))).rounded()
        guard scaled < 9.0e18 else { return nil }
        return UInt64(scaled)
    }

    /// Writes `value` (which `fits`) at `output`, which has room for `maximumLength` bytes; returns
    /// the count written.
    @inline(__always)
    package static func write(_ value: Double, fractionDigits: Int, to output: UnsafeMutablePointer<UInt8>) -> Int {
        write(units: units(value, fractionDigits: fractionDigits)!, negative: value < 0, fractionDigits: fractionDigits, to: output)
    }

    /// Writes a value given as its `units` (see `units(_:fractionDigits:)`) and sign: the number is
    /// rounded once, for the check and the digits alike.
    @inline(__always)
    package static func write(units: UInt64, negative: Bool, fractionDigits: Int, to output: UnsafeMutablePointer<UInt8>) -> Int {
        precondition((0...15).contains(fractionDigits))
        let scale = powerOfTen(fractionDigits)
        var count = 0
        if negative && units != 0 { output[0] = UInt8(ascii: "-"); count = 1 }
        count += writeDigits(units / scale, to: output + count)
        var fraction = units % scale
        guard fraction != 0 else { return count }
        var digits = fractionDigits
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        output[count] = UInt8(ascii: ".")
        count += 1
        for index in stride(from: digits - 1, through: 0, by: -1) {
            output[count + index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
            fraction /= 10
        }
        return count + digits
    }

    /// Appends `value`'s text to `bytes`: fixed point when it fits, else the shortest round-trip
    /// form; nothing for a non-finite value.
    package static func append(_ value: Double, fractionDigits: Int, to bytes: inout [UInt8]) {
        guard value.isFinite else { return }
        guard fits(value, fractionDigits: fractionDigits) else {
            bytes.append(contentsOf: value.description.utf8)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { scratch in
            let count = write(value, fractionDigits: fractionDigits, to: scratch.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
        }
    }

    /// The decimal digits of `value`, without leading zeros; returns their count.
    @inline(__always)
    private static func writeDigits(_ value: UInt64, to output: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        rest = value
        for index in stride(from: digits - 1, through: 0, by: -1) {
            output[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return digits
    }

    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> UInt64 {
        var power: UInt64 = 1
        for _ in 0..<exponent { power &*= 10 }
        return power
    }
}
