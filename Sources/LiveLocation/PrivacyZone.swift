/// A circle in which a share tells no more than "somewhere in here": while the device is inside it
/// (`distance ≤ radius`), the position shared is the zone's centre with the radius as accuracy.
public struct PrivacyZone: Sendable, Equatable {
    /// The centre, WGS 84 degrees. It is what is shared: put it where being seen does not matter.
    public var latitude: Double
    public var longitude: Double
    /// The radius, metres.
    public var radiusMeters: Double

    /// The largest radius accepted, metres.
    public static let maximumRadiusMeters = 100_000.0

    /// A zone; nil for a latitude outside ±90°, a longitude outside ±180° or a radius outside
    /// (0, `maximumRadiusMeters`].
    public init?(latitude: Double, longitude: Double, radiusMeters: Double) {
        guard latitude.isFinite, longitude.isFinite, radiusMeters.isFinite,
              (-90...90).contains(latitude), (-180...180).contains(longitude),
              radiusMeters > 0, radiusMeters <= Self.maximumRadiusMeters
        else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.radiusMeters = radiusMeters
    }

    /// Parses the configuration and command-line spelling `LAT,LON,RADIUS` (degrees, degrees,
    /// metres), e.g. `48.137,11.575,300`.
    public init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let latitude = Double(parts[0].trimmingSpaces), let longitude = Double(parts[1].trimmingSpaces),
              let radius = Double(parts[2].trimmingSpaces)
        else { return nil }
        self.init(latitude: latitude, longitude: longitude, radiusMeters: radius)
    }

    /// Whether the position is inside the zone (on its edge counts as inside).
    public func contains(latitude: Double, longitude: Double) -> Bool {
        greatCircleDistanceMeters(self.latitude, self.longitude, latitude, longitude) <= radiusMeters
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}
