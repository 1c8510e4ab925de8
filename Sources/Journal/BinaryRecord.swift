import LiveLocation

/// The journal's row formats: share events and the share's state in a compact binary form (about
/// 120 and 150 bytes), so that a batch touches few, small pages (bench/durability.sh). Little-endian,
/// a version byte first; optional values behind a presence mask. The JSON a destination sends is
/// made again from the decoded event (`jsonLineBytes` is a pure function of it).
enum BinaryRecord {
    static let version: UInt8 = 1

    static func encode(_ event: ShareEvent) -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(version)
        switch event {
        case .updated(let id, let seq, let location):
            writer.byte(0)
            writer.string(id.rawValue)
            writer.int(Int64(seq))
            writer.double(location.latitude)
            writer.double(location.longitude)
            writer.int(location.lastUpdateAt.millisecondsSince1970)
            writer.int(location.startedAt.millisecondsSince1970)
            writer.int(location.expiresAt.millisecondsSince1970)
            writer.byte(location.isActive ? 1 : 0)
            writer.optionals([location.accuracyMeters, location.altitudeMeters, location.speedMetersPerSecond,
                              location.courseDegreesTrue])
            // Added later: written only when present, so that rows without them keep their form.
            if location.hdop != nil || location.battery != nil {
                writer.optionals([location.hdop, location.battery?.packed])
            }
        case .ended(let id, let seq, let reason):
            writer.byte(1)
            writer.string(id.rawValue)
            writer.int(Int64(seq))
            writer.string(reason.rawValue)
        }
        return writer.bytes
    }

    static func decodeEvent(_ bytes: [UInt8]) -> ShareEvent? {
        var reader = ByteReader(bytes)
        guard reader.byte() == version, let kind = reader.byte(), let id = reader.string(), let seq = reader.int() else { return nil }
        switch kind {
        case 0:
            guard let latitude = reader.double(), let longitude = reader.double(), let last = reader.int(),
                  let started = reader.int(), let expires = reader.int(), let active = reader.byte(),
                  let optionals = reader.optionals(count: 4) else { return nil }
            var later: [Double?] = [nil, nil]
            if !reader.isAtEnd {
                guard let values = reader.optionals(count: 2), reader.isAtEnd else { return nil }
                later = values
            }
            let battery = later[1].flatMap(BatteryReading.init(packed:))
            guard later[1] == nil || battery != nil else { return nil }
            return .updated(shareID: ShareID(rawValue: id), seq: Int(seq), location: LiveLocation(
                latitude: latitude, longitude: longitude, lastUpdateAt: Timestamp(millisecondsSince1970: last),
                startedAt: Timestamp(millisecondsSince1970: started), expiresAt: Timestamp(millisecondsSince1970: expires),
                isActive: active == 1, accuracyMeters: optionals[0], altitudeMeters: optionals[1],
                speedMetersPerSecond: optionals[2], courseDegreesTrue: optionals[3], hdop: later[0], battery: battery))
        case 1:
            guard let text = reader.string(), let reason = ShareEvent.EndReason(rawValue: text), reader.isAtEnd else { return nil }
            return .ended(shareID: ShareID(rawValue: id), seq: Int(seq), reason: reason)
        default:
            return nil
        }
    }

    static func encode(_ share: ShareSnapshot) -> [UInt8] {
        var writer = ByteWriter()
        writer.byte(version)
        writer.string(share.id.rawValue)
        writer.int(share.startedAt.millisecondsSince1970)
        writer.int(share.expiresAt.millisecondsSince1970)
        writer.int(Int64(share.seq))
        writer.int(Int64(share.updatesSent))
        // 0: no fix; 1: a fix; 2: the same fix as the one before (the last sent is usually the last).
        writer.fix(share.lastFix)
        if let sent = share.lastSentFix, sent == share.lastFix { writer.byte(2) } else { writer.fix(share.lastSentFix) }
        // Added later, written only when known (a record without it is read as before): which clock
        // the times are on, the boot, and UTC at boot as estimated (the expiry on the time since boot).
        if let base = share.timeBase {
            writer.byte(base.source.rawValue)
            if let boot = base.bootID {
                writer.byte(1)
                writer.int(Int64(bitPattern: boot.high))
                writer.int(Int64(bitPattern: boot.low))
            } else {
                writer.byte(0)
            }
            writer.int(base.bootedAt.millisecondsSince1970)
        }
        return writer.bytes
    }

    static func decodeShare(_ bytes: [UInt8]) -> ShareSnapshot? {
        var reader = ByteReader(bytes)
        guard reader.byte() == version, let id = reader.string(), let started = reader.int(), let expires = reader.int(),
              let seq = reader.int(), let updates = reader.int(), case .some(let lastFix) = reader.fix(previous: nil),
              case .some(let lastSent) = reader.fix(previous: lastFix) else { return nil }
        var timeBase: ShareTimeBase?
        if !reader.isAtEnd {
            guard let base = reader.timeBase(), reader.isAtEnd else { return nil }
            timeBase = base
        }
        return ShareSnapshot(id: ShareID(rawValue: id), startedAt: Timestamp(millisecondsSince1970: started),
                             expiresAt: Timestamp(millisecondsSince1970: expires), lastFix: lastFix,
                             lastSentFix: lastSent, seq: Int(seq), updatesSent: Int(updates), timeBase: timeBase)
    }
}

private struct ByteWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(160) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func double(_ value: Double) { int(Int64(bitPattern: value.bitPattern)) }

    mutating func string(_ value: String) {
        let utf8 = Array(value.utf8.prefix(255))
        byte(UInt8(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A presence mask, then the values present.
    mutating func optionals(_ values: [Double?]) {
        var mask: UInt8 = 0
        for (index, value) in values.enumerated() where value != nil { mask |= 1 << index }
        byte(mask)
        for value in values { if let value { double(value) } }
    }

    mutating func fix(_ fix: Fix?) {
        guard let fix else { return byte(0) }
        byte(1)
        int(fix.time.millisecondsSince1970)
        double(fix.latitude)
        double(fix.longitude)
        byte(UInt8(truncatingIfNeeded: fix.mode.rawValue))
        optionals([fix.altitudeMSLMeters, fix.altitudeHAEMeters, fix.speedMetersPerSecond, fix.courseDegreesTrue,
                   fix.horizontalAccuracyMeters, fix.hdop, fix.satellitesUsed.map(Double.init)])
    }
}

private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int() -> Int64? {
        guard offset + 8 <= bytes.count else { return nil }
        var value: Int64 = 0
        for index in (0..<8).reversed() { value = value << 8 | Int64(bytes[offset + index]) }
        offset += 8
        return value
    }

    mutating func double() -> Double? { int().map { Double(bitPattern: UInt64(bitPattern: $0)) } }

    mutating func string() -> String? {
        guard let count = byte(), offset + Int(count) <= bytes.count else { return nil }
        defer { offset += Int(count) }
        return String(decoding: bytes[offset..<offset + Int(count)], as: UTF8.self)
    }

    /// `count` optional values behind a presence mask; nil when the bytes run out.
    mutating func optionals(count: Int) -> [Double?]? {
        guard let mask = byte() else { return nil }
        var values: [Double?] = []
        for index in 0..<count {
            if mask & (1 << index) == 0 { values.append(nil); continue }
            guard let value = double() else { return nil }
            values.append(value)
        }
        return values
    }

    /// A share's time base, or nil when the bytes are not one.
    mutating func timeBase() -> ShareTimeBase? {
        guard let sourceByte = byte(), let source = ShareTimeBase.Source(rawValue: sourceByte), let hasBoot = byte() else { return nil }
        var boot: BootID?
        switch hasBoot {
        case 0: break
        case 1:
            guard let high = int(), let low = int() else { return nil }
            boot = BootID(high: UInt64(bitPattern: high), low: UInt64(bitPattern: low))
        default: return nil
        }
        guard let bootedAt = int() else { return nil }
        return ShareTimeBase(source: source, bootID: boot, bootedAt: Timestamp(millisecondsSince1970: bootedAt))
    }

    /// A fix (`.some(nil)` for none), or nil when the bytes are not one.
    mutating func fix(previous: Fix?) -> Fix?? {
        switch byte() {
        case 0: return .some(nil)
        case 2: return .some(previous)
        case 1:
            guard let time = int(), let latitude = double(), let longitude = double(), let modeByte = byte(),
                  let mode = Fix.Mode(rawValue: Int(modeByte)), let values = optionals(count: 7) else { return nil }
            return .some(Fix(time: Timestamp(millisecondsSince1970: time), latitude: latitude, longitude: longitude,
                             mode: mode, altitudeMSLMeters: values[0], altitudeHAEMeters: values[1],
                             speedMetersPerSecond: values[2], courseDegreesTrue: values[3],
                             horizontalAccuracyMeters: values[4], hdop: values[5], satellitesUsed: values[6].map { Int($0) }))
        default: return nil
        }
    }
}
