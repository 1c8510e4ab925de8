import LiveLocation

/// A `Retry-After` header's value (RFC 9110 10.2.3): a number of seconds, or an HTTP date.
package enum HTTPRetryAfter: Equatable, Sendable {
    case seconds(Int64)
    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), in seconds since 1970 (UTC).
    case date(secondsSince1970: Int64)

    /// Reads the header's value (white space around it already removed); nil when it is neither
    /// form (the obsolete RFC 850 and asctime dates are not read).
    package init?(_ value: some Collection<UInt8>) {
        let bytes = Array(value)
        if let seconds = Self.number(bytes[...]) {
            self = .seconds(seconds)
            return
        }
        // "Sun, 06 Nov 1994 08:49:37 GMT": fixed positions.
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20, bytes[11] == 0x20,
              bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"), bytes[25] == 0x20,
              bytes[26...] == [UInt8(ascii: "G"), UInt8(ascii: "M"), UInt8(ascii: "T")],
              let day = Self.number(bytes[5..<7]), let year = Self.number(bytes[12..<16]),
              let hour = Self.number(bytes[17..<19]), let minute = Self.number(bytes[20..<22]),
              let second = Self.number(bytes[23..<25]),
              let month = Self.months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
              (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = CivilDate(year: year, month: month + 1, day: Int(day)).daysSince1970
        self = .date(secondsSince1970: days * 86_400 + hour * 3600 + minute * 60 + second)
    }

    /// How long to wait from `now`; nil for no wait (0 s, or a date that has passed), as libcurl's
    /// `CURLINFO_RETRY_AFTER` was read before. At most `Duration.longestServerWait` (a day).
    package func delay(now: Timestamp) -> Duration? {
        let seconds = switch self {
        case .seconds(let seconds): seconds
        case .date(let date): date - now.millisecondsSince1970 / 1000
        }
        return seconds > 0 ? min(.seconds(seconds), .longestServerWait) : nil
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// 1 to 18 decimal digits.
    private static func number(_ bytes: ArraySlice<UInt8>) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
