/// A byte buffer for writing one JSON object, field by field, without Foundation.
///
/// Numbers are written in fixed point with a given number of fraction digits, trailing zeros
/// trimmed; non-finite numbers are never written (the field is left out).
package struct JSONLine: Sendable {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    package mutating func field(_ key: StaticString, _ value: String) {
        writeKey(key)
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)]); bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func field(_ key: StaticString, _ value: Timestamp) {
        writeKey(key)
        bytes.append(UInt8(ascii: "\""))
        value.appendISO8601(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func field(_ key: StaticString, _ value: Int) {
        writeKey(key)
        appendInteger(Int64(value))
    }

    package mutating func field(_ key: StaticString, _ value: Bool) {
        writeKey(key)
        bytes.append(contentsOf: value ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
    }

    package mutating func field(_ key: StaticString, _ value: Double?, fractionDigits: Int) {
        guard let value, value.isFinite else { return }
        writeKey(key)
        appendFixed(value, fractionDigits: fractionDigits)
    }

    package mutating func field(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        field(key, value)
    }

    /// A nested object, written by `body`.
    package mutating func object(_ key: StaticString, _ body: (inout JSONLine) -> Void) {
        writeKey(key)
        var inner = JSONLine(capacity: 192)
        body(&inner)
        bytes.append(contentsOf: inner.bytes)
        bytes.append(UInt8(ascii: "}"))
    }

    /// The finished object followed by a newline.
    package mutating func finishLine() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private mutating func writeKey(_ key: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func appendInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    private mutating func appendFixed(_ value: Double, fractionDigits: Int) {
        var scale: Double = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else {
            // Beyond fixed point's range; the shortest round-trip form is valid JSON too.
            bytes.append(contentsOf: Array(value.description.utf8))
            return
        }
        var units = UInt64(scaled)
        let divisor = UInt64(scale)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        appendInteger(Int64(units / divisor))
        units %= divisor
        guard units != 0 else { return }
        var digitsLeft = fractionDigits
        while units % 10 == 0 { units /= 10; digitsLeft -= 1 }
        bytes.append(UInt8(ascii: "."))
        var place = 1 as UInt64
        for _ in 1..<max(digitsLeft, 1) { place *= 10 }
        while place > 0 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(units / place % 10))
            place /= 10
        }
    }
}

extension ShareEvent {
    /// The event as one line of JSON (with its newline), the format of stdout and webhook bodies.
    public var jsonLine: String { String(decoding: jsonLineBytes, as: UTF8.self) }

    /// The event as one line of JSON, newline included, as UTF-8 bytes.
    public var jsonLineBytes: [UInt8] {
        var line = JSONLine()
        switch self {
        case .updated(let id, let seq, let location):
            line.field("event", "updated")
            line.field("shareId", id.rawValue)
            line.field("seq", seq)
            line.object("location") { object in
                object.field("latitude", location.latitude, fractionDigits: 9)
                object.field("longitude", location.longitude, fractionDigits: 9)
                object.field("lastUpdateAt", location.lastUpdateAt)
                object.field("startedAt", location.startedAt)
                object.field("expiresAt", location.expiresAt)
                object.field("isActive", location.isActive)
                object.field("accuracy", location.accuracyMeters, fractionDigits: 3)
                object.field("altitude", location.altitudeMeters, fractionDigits: 3)
                object.field("speed", location.speedMetersPerSecond, fractionDigits: 3)
                object.field("course", location.courseDegreesTrue, fractionDigits: 3)
            }
        case .ended(let id, let seq, let reason):
            line.field("event", "ended")
            line.field("shareId", id.rawValue)
            line.field("seq", seq)
            line.field("reason", reason.rawValue)
        }
        return line.finishLine()
    }
}

extension Fix {
    /// The fix as one line of JSON in gpsd's TPV vocabulary (`time`, `lat`, `lon`, `altMSL`,
    /// `altHAE`, `speed`, `track`, `mode`, `eph`, `hdop`, `satellites`), newline included.
    /// This is what `liveloc decode` and `liveloc fixes` print.
    public var tpvJSONLineBytes: [UInt8] {
        var line = JSONLine(capacity: 192)
        line.field("class", "TPV")
        line.field("time", time)
        line.field("mode", mode.rawValue)
        line.field("lat", latitude, fractionDigits: 9)
        line.field("lon", longitude, fractionDigits: 9)
        line.field("altMSL", altitudeMSLMeters, fractionDigits: 3)
        line.field("altHAE", altitudeHAEMeters, fractionDigits: 3)
        line.field("speed", speedMetersPerSecond, fractionDigits: 3)
        line.field("track", courseDegreesTrue, fractionDigits: 3)
        line.field("eph", horizontalAccuracyMeters, fractionDigits: 3)
        line.field("hdop", hdop, fractionDigits: 2)
        line.field("satellites", satellitesUsed)
        return line.finishLine()
    }
}
