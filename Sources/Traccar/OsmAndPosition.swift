import LiveLocation

/// One position in Traccar's OsmAnd protocol: the form fields of one request.
package enum OsmAndPosition {
    /// Knots per metre per second (1 kn = 1852 m/h).
    package static let knotsPerMeterPerSecond = 3600.0 / 1852.0

    /// The fields for `location` of share `shareID` from device `deviceID`, in this order: `id`,
    /// `lat`, `lon` (degrees), `timestamp` (Unix seconds of the fix), then where known `speed`
    /// (knots), `bearing` (degrees true, 0 ≤ bearing < 360), `altitude` (metres), `accuracy` (metres),
    /// `hdop`, `batt` (battery percent) and `charge` (true on external power, when the power supply
    /// says), the names Traccar's OsmAnd decoder reads (OsmAndProtocolDecoder: `hdop`, `batt`, and any
    /// other name as an attribute, `charge` being its `KEY_CHARGE`), then the extra attributes
    /// `shareId`, `expiresAt` (ISO 8601) and, in a share's final update, `shareState=ended`.
    package static func fields(for location: LiveLocation, shareID: ShareID, deviceID: String) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("id", deviceID),
            ("lat", number(location.latitude)),
            ("lon", number(location.longitude)),
            ("timestamp", String(location.lastUpdateAt.millisecondsSince1970.floorDivided(by: 1000).quotient)),
        ]
        if let speed = location.speedMetersPerSecond, speed.isFinite {
            fields.append(("speed", number((speed * knotsPerMeterPerSecond * 1000).rounded() / 1000)))
        }
        if let course = Course.normalized(location.courseDegreesTrue, fractionDigits: 6) { fields.append(("bearing", number(course))) }
        if let altitude = location.altitudeMeters, altitude.isFinite { fields.append(("altitude", number(altitude))) }
        if let accuracy = location.accuracyMeters, accuracy.isFinite { fields.append(("accuracy", number(accuracy))) }
        if let hdop = location.hdop, hdop.isFinite { fields.append(("hdop", number(hdop))) }
        if let battery = location.battery {
            fields.append(("batt", String(battery.level)))
            if battery.status != .unknown { fields.append(("charge", battery.status.isOnExternalPower ? "true" : "false")) }
        }
        fields.append(("shareId", shareID.rawValue))
        fields.append(("expiresAt", location.expiresAt.iso8601))
        if !location.isActive { fields.append(("shareState", "ended")) }
        return fields
    }

    /// Swift's shortest round-trip text, without a trailing `.0`.
    private static func number(_ value: Double) -> String {
        let text = String(value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
