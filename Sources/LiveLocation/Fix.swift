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
        greatCircleDistanceMeters(latitude, longitude, other.latitude, other.longitude)
    }
}
