/// One position report from a receiver, the same whichever source produced it.
///
/// Units: degrees (WGS 84) for latitude and longitude, metres for altitudes and accuracy, metres per
/// second for speed, degrees true for course. Unknown values are nil.
public struct Fix: Sendable, Equatable, Codable {
    /// Whether the receiver reports height (3D) or only a horizontal position (2D).
    public enum Mode: Int, Sendable, Codable {
        case twoDimensional = 2
        case threeDimensional = 3
    }

    /// When the receiver took the fix (UTC).
    public var time: Timestamp
    public var latitude: Double
    public var longitude: Double
    public var mode: Mode
    /// Altitude above mean sea level, metres.
    public var altitudeMSLMeters: Double?
    /// Height above the WGS 84 ellipsoid, metres.
    public var altitudeHAEMeters: Double?
    /// Speed over ground, metres per second.
    public var speedMetersPerSecond: Double?
    /// Course over ground, degrees true (0 ..< 360).
    public var courseDegreesTrue: Double?
    /// Estimated horizontal error (95 %), metres, when the source reports one.
    public var horizontalAccuracyMeters: Double?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Satellites used in the fix.
    public var satellitesUsed: Int?

    public init(
        time: Timestamp, latitude: Double, longitude: Double, mode: Mode = .threeDimensional,
        altitudeMSLMeters: Double? = nil, altitudeHAEMeters: Double? = nil,
        speedMetersPerSecond: Double? = nil, courseDegreesTrue: Double? = nil,
        horizontalAccuracyMeters: Double? = nil, hdop: Double? = nil, satellitesUsed: Int? = nil
    ) {
        self.time = time
        self.latitude = latitude
        self.longitude = longitude
        self.mode = mode
        self.altitudeMSLMeters = altitudeMSLMeters
        self.altitudeHAEMeters = altitudeHAEMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegreesTrue = courseDegreesTrue
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.hdop = hdop
        self.satellitesUsed = satellitesUsed
    }

    /// Great-circle distance to `other` in metres (haversine, mean Earth radius).
    public func distanceMeters(to other: Fix) -> Double {
        let radiansPerDegree = Double.pi / 180
        let lat1 = latitude * radiansPerDegree
        let lat2 = other.latitude * radiansPerDegree
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * radiansPerDegree
        let h = sinSquared(dLat / 2) + cosine(lat1) * cosine(lat2) * sinSquared(dLon / 2)
        return 2 * 6_371_008.8 * arcsineOfSquareRoot(min(1, h))
    }
}

// The core imports no C library, so the few trigonometric functions the distance needs are here,
// accurate to well under a millimetre at any distance a throttle uses.
private func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }

private func sinSquared(_ x: Double) -> Double { let s = sine(x); return s * s }

private func sine(_ x: Double) -> Double {
    // Reduce to [-π, π], then a Taylor series; |x| ≤ π gives < 1e-15 error with 12 terms.
    var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if r > Double.pi { r -= 2 * Double.pi } else if r < -Double.pi { r += 2 * Double.pi }
    var term = r
    var sum = r
    let r2 = r * r
    for n in 1...12 {
        term *= -r2 / Double((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}

private func arcsineOfSquareRoot(_ h: Double) -> Double {
    // asin(√h) by Newton's method on sin(y) = √h, from a good start; h in [0, 1].
    let target = h.squareRoot()
    if target >= 1 { return Double.pi / 2 }
    var y = target
    for _ in 0..<30 {
        let s = sine(y)
        let c = cosine(y)
        guard c > 1e-12 else { break }
        let step = (s - target) / c
        y -= step
        if abs(step) < 1e-15 { break }
    }
    return y
}
