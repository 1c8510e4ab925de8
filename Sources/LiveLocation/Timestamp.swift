/// A moment in UTC, to the millisecond.
///
/// Every time in livelocd (a fix's time, a share's start and expiry, a clock's `now`) is a
/// `Timestamp`, so that a replayed log's timeline and the wall clock look the same downstream.
public struct Timestamp: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, leap seconds not counted (POSIX time).
    public var millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
        Timestamp(millisecondsSince1970: lhs.millisecondsSince1970 + rhs.wholeMilliseconds)
    }

    public static func - (lhs: Timestamp, rhs: Duration) -> Timestamp {
        Timestamp(millisecondsSince1970: lhs.millisecondsSince1970 - rhs.wholeMilliseconds)
    }

    /// The time from `rhs` to `lhs`.
    public static func - (lhs: Timestamp, rhs: Timestamp) -> Duration {
        .milliseconds(lhs.millisecondsSince1970 - rhs.millisecondsSince1970)
    }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-12-02T16:00:37.250Z`.
    public var description: String { iso8601 }

    /// ISO 8601 in UTC with milliseconds, e.g. `2026-12-02T16:00:37.250Z`.
    public var iso8601: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The length of the ISO 8601 form for years 0000 to 9999.
    package static let iso8601Length = 24

    /// Appends the ISO 8601 form (24 bytes for years 0000–9999) to `bytes`.
    package func appendISO8601(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { scratch in
            let count = writeISO8601(to: scratch.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<count]))
        }
    }

    /// Writes the ISO 8601 form at `output`, which has room for `iso8601Length` bytes; returns the
    /// count written. The hot path of every JSON line.
    func writeISO8601(to output: UnsafeMutablePointer<UInt8>) -> Int {
        let (days, msOfDay) = millisecondsSince1970.floorDivided(by: 86_400_000)
        let civil = CivilDate(daysSince1970: days)
        // Years outside 0...9999 have no 4-digit form; clamp rather than overrun (no GPS gives them).
        let year = min(max(civil.year, 0), 9999)
        var at = output
        Self.writeDigits(year, count: 4, then: UInt8(ascii: "-"), at: &at)
        Self.writeDigits(Int64(civil.month), count: 2, then: UInt8(ascii: "-"), at: &at)
        Self.writeDigits(Int64(civil.day), count: 2, then: UInt8(ascii: "T"), at: &at)
        return at - output + Self.writeISO8601TimeOfDay(msOfDay, to: at)
    }

    /// The length of the ISO 8601 date part with its `T` (`2026-12-02T`).
    static let iso8601DateLength = 11

    /// The last date part written, so that many timestamps of one day compute their date once.
    package struct ISO8601DateCache {
        var day: Int64 = .min
        /// The `iso8601DateLength` bytes of that day's date part.
        var date: (UInt64, UInt64) = (0, 0)

        package init() {}
    }

    /// `writeISO8601(to:)`, the date part taken from `cache` when it is the same day (then kept there).
    package func writeISO8601(to output: UnsafeMutablePointer<UInt8>, cache: inout ISO8601DateCache) -> Int {
        let (days, msOfDay) = millisecondsSince1970.floorDivided(by: 86_400_000)
        guard days == cache.day else {
            let count = writeISO8601(to: output)
            cache.day = days
            withUnsafeMutableBytes(of: &cache.date) { date in
                date.copyMemory(from: UnsafeRawBufferPointer(start: output, count: Self.iso8601DateLength))
            }
            return count
        }
        withUnsafeBytes(of: cache.date) { date in
            UnsafeMutableRawPointer(output).copyMemory(from: date.baseAddress!, byteCount: Self.iso8601DateLength)
        }
        return Self.iso8601DateLength + Self.writeISO8601TimeOfDay(msOfDay, to: output + Self.iso8601DateLength)
    }

    /// Writes `HH:MM:SS.mmmZ` (13 bytes) for `msOfDay` milliseconds into the day; returns 13.
    @inline(__always)
    private static func writeISO8601TimeOfDay(_ msOfDay: Int64, to output: UnsafeMutablePointer<UInt8>) -> Int {
        var at = output
        writeDigits(msOfDay / 3_600_000, count: 2, then: UInt8(ascii: ":"), at: &at)
        writeDigits(msOfDay / 60_000 % 60, count: 2, then: UInt8(ascii: ":"), at: &at)
        writeDigits(msOfDay / 1000 % 60, count: 2, then: UInt8(ascii: "."), at: &at)
        writeDigits(msOfDay % 1000, count: 3, then: UInt8(ascii: "Z"), at: &at)
        return at - output
    }

    /// Writes `value` (≥ 0) as exactly `count` decimal digits, zero-padded, then `separator`, at `at`,
    /// and moves `at` past them.
    @inline(__always)
    private static func writeDigits(_ value: Int64, count: Int, then separator: UInt8, at: inout UnsafeMutablePointer<UInt8>) {
        var rest = value
        var index = count
        while index > 0 {
            index -= 1
            at[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        at += count
        at.pointee = separator
        at += 1
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nil for anything else.
    public init?(iso8601 text: String) {
        let b = Array(text.utf8)
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              b.last == UInt8(ascii: "Z"),
              let year = parseDigits(b[0..<4]), let month = parseDigits(b[5..<7]),
              let day = parseDigits(b[8..<10]), let hour = parseDigits(b[11..<13]),
              let minute = parseDigits(b[14..<16]), let second = parseDigits(b[17..<19]),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var millis: Int64 = 0
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count <= 30 else { return nil }
            let fraction = b[20..<(b.count - 1)]
            guard !fraction.isEmpty, let value = parseDigits(fraction) else { return nil }
            var scaled = value
            var digits = fraction.count
            while digits < 3 { scaled *= 10; digits += 1 }
            while digits > 3 { scaled /= 10; digits -= 1 }
            millis = scaled
        } else if b.count != 20 {
            return nil
        }
        let days = CivilDate(year: year, month: Int(month), day: Int(day)).daysSince1970
        self.init(millisecondsSince1970: days * 86_400_000 + (hour * 3600 + minute * 60 + second) * 1000 + millis)
    }
}

/// A proleptic Gregorian calendar date (Howard Hinnant's days-from-civil algorithms).
package struct CivilDate: Equatable, Sendable {
    package var year: Int64
    package var month: Int
    package var day: Int

    package init(year: Int64, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    package init(daysSince1970 days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = Int(doy - (153 * mp + 2) / 5 + 1)
        month = Int(mp < 10 ? mp + 3 : mp - 9)
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    package var daysSince1970: Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension Int64 {
    /// Floor division and a non-negative remainder.
    package func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var q = self / divisor
        var r = self % divisor
        if r < 0 { q -= 1; r += divisor }
        return (q, r)
    }
}

@inline(__always)
private func parseDigits(_ bytes: ArraySlice<UInt8>) -> Int64? {
    var value: Int64 = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
    }
    return value
}
