/// One comma-separated field of a sentence, read in place.
struct Field {
    let base: UnsafePointer<UInt8>
    let count: Int

    var isEmpty: Bool { count == 0 }

    /// The first byte, or 0 when empty.
    var first: UInt8 { count > 0 ? base[0] : 0 }

    /// Whether the field is exactly the one byte `byte`.
    func `is`(_ byte: UInt8) -> Bool { count == 1 && base[0] == byte }

    /// A decimal number (`-12.5`, `007`, `.5`); nil when empty or not a number.
    var double: Double? {
        guard let (mantissa, fractionDigits) = decimal() else { return nil }
        return Double(mantissa) / powerOfTen(fractionDigits)
    }

    /// A non-negative integer; nil when empty or not all digits.
    var integer: Int? {
        guard count > 0, count <= 9 else { return nil }
        var value = 0
        for index in 0..<count {
            let digit = base[index] &- 0x30
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    /// `ddmm.mmmm` (or `dddmm.mmmm`) in degrees; nil when empty or invalid.
    var degreesMinutes: Double? {
        guard let (mantissa, fractionDigits) = decimal(), mantissa >= 0 else { return nil }
        let scale = integerPowerOfTen(fractionDigits)
        let whole = mantissa / scale
        let degrees = whole / 100
        let minutesScaled = mantissa - degrees * 100 * scale
        let minutes = Double(minutesScaled) / powerOfTen(fractionDigits)
        guard minutes < 60 else { return nil }
        return Double(degrees) + minutes / 60
    }

    /// `hhmmss[.sss]` as milliseconds since midnight; nil when empty or invalid.
    var timeOfDayMilliseconds: Int? {
        guard count >= 6 else { return nil }
        var digits = 0
        for index in 0..<6 {
            let digit = base[index] &- 0x30
            guard digit < 10 else { return nil }
            digits = digits * 10 + Int(digit)
        }
        let hours = digits / 10000, minutes = digits / 100 % 100, seconds = digits % 100
        guard hours < 24, minutes < 60, seconds < 61 else { return nil }
        var millis = 0
        if count > 6 {
            guard base[6] == UInt8(ascii: "."), count <= 16 else { return nil }
            var fraction = 0
            var fractionDigits = 0
            for index in 7..<count {
                let digit = base[index] &- 0x30
                guard digit < 10 else { return nil }
                fraction = fraction * 10 + Int(digit)
                fractionDigits += 1
            }
            // Round to the millisecond.
            switch fractionDigits {
            case 0: millis = 0
            case 1: millis = fraction * 100
            case 2: millis = fraction * 10
            case 3: millis = fraction
            default:
                let divisor = Int(integerPowerOfTen(fractionDigits - 3))
                millis = (fraction + divisor / 2) / divisor
            }
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
    }

    /// Digits with an optional sign and decimal point: the value times 10^fractionDigits.
    @inline(__always)
    private func decimal() -> (Int64, Int)? {
        guard count > 0, count <= 19 else { return nil }
        var index = 0
        let sign = base[0]
        if sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { index = 1 }
        // Wrapping arithmetic: more than 18 digits is rejected below, so no overflow is kept.
        var mantissa: Int64 = 0
        let integerStart = index
        while index < count {
            let digit = base[index] &- 0x30
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ Int64(digit)
            index += 1
        }
        var digits = index - integerStart
        var fractionDigits = 0
        if index < count {
            guard base[index] == UInt8(ascii: ".") else { return nil }
            index += 1
            let fractionStart = index
            while index < count {
                let digit = base[index] &- 0x30
                guard digit < 10 else { return nil }
                mantissa = mantissa &* 10 &+ Int64(digit)
                index += 1
            }
            fractionDigits = index - fractionStart
            digits += fractionDigits
        }
        // 18 digits always fit an Int64; no receiver sends more, so more is not a number.
        guard digits > 0, digits <= 18, fractionDigits <= 17 else { return nil }
        return (sign == UInt8(ascii: "-") ? -mantissa : mantissa, fractionDigits)
    }
}

/// Walks the comma-separated fields of a sentence body in order, without copying.
struct FieldCursor {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var position: Int
    /// Whether the previous field ended at the end of the body.
    private var exhausted = false

    /// `body` spans the fields after the address field (after its comma), up to the `*`.
    init(base: UnsafePointer<UInt8>, start: Int, end: Int) {
        self.base = base
        self.position = start
        self.end = end
        self.exhausted = start > end
    }

    /// The next field; an empty one past the last.
    mutating func next() -> Field {
        guard !exhausted else { return Field(base: base, count: 0) }
        var index = position
        while index < end && base[index] != UInt8(ascii: ",") { index += 1 }
        let field = Field(base: base + position, count: index - position)
        if index >= end { exhausted = true } else { position = index + 1 }
        return field
    }

    /// Skips `count` fields.
    mutating func skip(_ count: Int) {
        for _ in 0..<count { _ = next() }
    }
}

/// 10^exponent, exact (every power of ten up to 10^22 is a Double), for exponent in 0...18.
@inline(__always)
private func powerOfTen(_ exponent: Int) -> Double {
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
}

/// 10^exponent for exponent in 0...18.
@inline(__always)
private func integerPowerOfTen(_ exponent: Int) -> Int64 {
    var value: Int64 = 1
    for _ in 0..<exponent { value &*= 10 }
    return value
}
