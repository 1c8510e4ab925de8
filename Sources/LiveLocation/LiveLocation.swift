/// What a share tells its watchers: the last known position and the share's lifetime.
///
/// This is the `location` object of an `updated` event.
public struct LiveLocation: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// When the position was measured (the fix's time).
    public var lastUpdateAt: Timestamp
    public var startedAt: Timestamp
    /// When the share ends; in a share's final update, the moment it ended.
    public var expiresAt: Timestamp
    /// True while the clock is before `expiresAt`, whatever the age of the position.
    public var isActive: Bool
    /// Estimated horizontal error, metres.
    public var accuracyMeters: Double?
    /// Altitude above mean sea level, metres.
    public var altitudeMeters: Double?
    /// Speed over ground, metres per second.
    public var speedMetersPerSecond: Double?
    /// Course over ground, degrees true.
    public var courseDegreesTrue: Double?
    /// Horizontal dilution of precision of the fix, when the receiver gives it.
    public var hdop: Double?
    /// The device's battery when the event was made; nil without one.
    public var battery: BatteryReading?

    public init(
        latitude: Double, longitude: Double, lastUpdateAt: Timestamp, startedAt: Timestamp,
        expiresAt: Timestamp, isActive: Bool, accuracyMeters: Double? = nil,
        altitudeMeters: Double? = nil, speedMetersPerSecond: Double? = nil, courseDegreesTrue: Double? = nil,
        hdop: Double? = nil, battery: BatteryReading? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.lastUpdateAt = lastUpdateAt
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.isActive = isActive
        self.accuracyMeters = accuracyMeters
        self.altitudeMeters = altitudeMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegreesTrue = courseDegreesTrue
        self.hdop = hdop
        self.battery = battery
    }
}
