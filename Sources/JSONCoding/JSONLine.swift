import LiveLocation

/// Writes one JSON object, field by field, without Foundation: the hot path of every event on
/// stdout and every webhook body, so it stores bytes straight into its own buffer (no per-byte
/// array bookkeeping).
///
/// Numbers are written in fixed point with a given number of fraction digits, trailing zeros
/// trimmed; non-finite numbers are never written (the field is left out).
package struct JSONLine: ~Copyable {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var needsComma = false
    private var dateCache = Timestamp.ISO8601DateCache()

    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 64)
        storage = .allocate(capacity: self.capacity)
        put(UInt8(ascii: "{"))
    }

    deinit {
        storage.deallocate()
    }

    package mutating func field(_ key: StaticString, _ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // Most strings (share ids, event names) need no escape: copied as they are.
            if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
                writeKey(key, valueBytes: utf8.count + 2)
                put(UInt8(ascii: "\""))
                if let base = utf8.baseAddress { (storage + count).update(from: base, count: utf8.count) }
                count += utf8.count
                put(UInt8(ascii: "\""))
                return
            }
            writeKey(key, valueBytes: utf8.count * JSONText.maximumEscapedLength + 2)
            put(UInt8(ascii: "\""))
            for byte in utf8 { JSONText.escape(byte) { put($0) } }
            put(UInt8(ascii: "\""))
        }
    }

    package mutating func field(_ key: StaticString, _ value: Timestamp) {
        writeKey(key, valueBytes: Timestamp.iso8601Length + 2)
        put(UInt8(ascii: "\""))
        count += value.writeISO8601(to: storage + count, cache: &dateCache)
        put(UInt8(ascii: "\""))
    }

    package mutating func field(_ key: StaticString, _ value: Int) {
        writeKey(key, valueBytes: 20)
        putInteger(Int64(value))
    }

    package mutating func field(_ key: StaticString, _ value: Bool) {
        writeKey(key, valueBytes: 5)
        for byte in (value ? "true" : "false").utf8 { put(byte) }
    }

    // Inlined: with `fractionDigits` a constant at every call site, the divisions by its power of
    // ten become multiplications (six numbers per event; this was the costliest field).
    @inline(__always)
    package mutating func field(_ key: StaticString, _ value: Double?, fractionDigits: Int) {
        guard let value, value.isFinite else { return }
        guard let units = FixedPoint.units(value, fractionDigits: fractionDigits) else {
            fieldBeyondFixedPoint(key, value)
            return
        }
        writeKey(key, valueBytes: FixedPoint.maximumLength)
        count += FixedPoint.write(units: units, negative: value < 0, fractionDigits: fractionDigits, to: storage + count)
    }

    /// Beyond fixed point's range; the shortest round-trip form is valid JSON too.
    private mutating func fieldBeyondFixedPoint(_ key: StaticString, _ value: Double) {
        let text = value.description.utf8
        writeKey(key, valueBytes: text.count)
        for byte in text { put(byte) }
    }

    package mutating func field(_ key: StaticString, _ value: Int?) {
        guard let value else { return }
        field(key, value)
    }

    /// A nested object, written by `body` in place.
    package mutating func object(_ key: StaticString, _ body: (inout JSONLine) -> Void) {
        writeKey(key, valueBytes: 1)
        put(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        reserve(1)
        put(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Appends the finished object and a newline to `output`, then starts the next object in the
    /// same buffer (many lines, one allocation; what is written after the last flush is dropped).
    package mutating func flushLine(appendingTo output: inout [UInt8]) {
        closeLine()
        output.append(contentsOf: UnsafeBufferPointer(start: storage, count: count))
        count = 0
        needsComma = false
        put(UInt8(ascii: "{"))
    }

    /// The finished object followed by a newline.
    package consuming func finishLine() -> [UInt8] {
        closeLine()
        return Array(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Appends the finished object and a newline to `output`: many lines, one buffer, one write.
    package consuming func finishLine(appendingTo output: inout [UInt8]) {
        closeLine()
        output.append(contentsOf: UnsafeBufferPointer(start: storage, count: count))
    }

    private mutating func closeLine() {
        reserve(2)
        put(UInt8(ascii: "}"))
        put(UInt8(ascii: "\n"))
    }

    /// The key, with its comma and colon, and room for `valueBytes` more.
    private mutating func writeKey(_ key: StaticString, valueBytes: Int) {
        reserve(key.utf8CodeUnitCount + 4 + valueBytes)
        if needsComma { put(UInt8(ascii: ",")) }
        needsComma = true
        put(UInt8(ascii: "\""))
        (storage + count).update(from: key.utf8Start, count: key.utf8CodeUnitCount)
        count += key.utf8CodeUnitCount
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grownCapacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: grownCapacity)
        grown.update(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity = grownCapacity
    }

    /// One byte, where `reserve` made room for it.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        storage[count] = byte
        count += 1
    }

    /// At most 20 bytes.
    private mutating func putInteger(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        putInteger(value.magnitude)
    }

    private mutating func putInteger(_ value: UInt64) {
        var digits = 1
        var rest = value / 10
        while rest > 0 { digits += 1; rest /= 10 }
        putDigits(value, count: digits)
    }

    /// The last `count` decimal digits of `value`, zero-padded.
    @inline(__always)
    private mutating func putDigits(_ value: UInt64, count digits: Int) {
        var rest = value
        var index = count + digits
        count = index
        for _ in 0..<digits {
            index -= 1
            storage[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }
}

extension ShareEvent {
    /// The event as one line of JSON (with its newline), the format of stdout and webhook bodies.
    package var jsonLine: String { String(decoding: jsonLineBytes, as: UTF8.self) }

    /// The event as one line of JSON, newline included, as UTF-8 bytes.
    package var jsonLineBytes: [UInt8] {
        jsonObject().finishLine()
    }

    /// Appends the JSON lines of `events` to `output` (what stdout writes per batch): one line
    /// buffer for all, and each day's date written once.
    package static func appendJSONLines(_ events: some Collection<ShareEvent>, to output: inout [UInt8]) {
        var line = JSONLine()
        for event in events {
            event.writeJSONObject(into: &line)
            line.flushLine(appendingTo: &output)
        }
    }

    private func jsonObject() -> JSONLine {
        var line = JSONLine()
        writeJSONObject(into: &line)
        return line
    }

    private func writeJSONObject(into line: inout JSONLine) {
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
                object.field("course", Course.normalized(location.courseDegreesTrue, fractionDigits: 3), fractionDigits: 3)
                object.field("hdop", location.hdop, fractionDigits: 2)
                if let battery = location.battery {
                    object.object("battery") { battery.writeJSON(into: &$0) }
                }
            }
        case .ended(let id, let seq, let reason):
            line.field("event", "ended")
            line.field("shareId", id.rawValue)
            line.field("seq", seq)
            line.field("reason", reason.rawValue)
        }
    }
}

extension Fix {
    /// The fix as one line of JSON in gpsd's TPV vocabulary (`time`, `lat`, `lon`, `altMSL`,
    /// `altHAE`, `speed`, `track`, `mode`, `eph`, `hdop`, `satellites`), newline included.
    /// This is what `liveloc decode` and `liveloc fixes` print.
    package var tpvJSONLineBytes: [UInt8] {
        tpvJSONLine().finishLine()
    }

    /// Appends the fix's TPV JSON line (newline included) to `output`: many fixes, one buffer.
    package func appendTPVJSONLine(to output: inout [UInt8]) {
        tpvJSONLine().finishLine(appendingTo: &output)
    }

    private func tpvJSONLine() -> JSONLine {
        var line = JSONLine(capacity: 192)
        line.field("class", "TPV")
        line.field("time", time)
        line.field("mode", mode.rawValue)
        line.field("lat", latitude, fractionDigits: 9)
        line.field("lon", longitude, fractionDigits: 9)
        line.field("altMSL", altitudeMSLMeters, fractionDigits: 3)
        line.field("altHAE", altitudeHAEMeters, fractionDigits: 3)
        line.field("speed", speedMetersPerSecond, fractionDigits: 3)
        line.field("track", Course.normalized(courseDegreesTrue, fractionDigits: 3), fractionDigits: 3)
        line.field("eph", horizontalAccuracyMeters, fractionDigits: 3)
        line.field("hdop", hdop, fractionDigits: 2)
        line.field("satellites", satellitesUsed)
        return line
    }
}

extension BatteryReading {
    /// The event JSON's `battery` object: `{"level":87,"status":"charging"}`.
    func writeJSON(into object: inout JSONLine) {
        object.field("level", level)
        object.field("status", status.rawValue)
    }
}
