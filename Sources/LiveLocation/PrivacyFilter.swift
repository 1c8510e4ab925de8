/// What a share reveals of each fix, for every destination alike: the fix as it is, or a blurred
/// one (a grid, privacy zones). Deterministic and stateless: the same true fix is always shared the
/// same way, so watching a share for a long time reveals nothing more than one update does.
///
/// - Inside a zone (the first listed that holds the true position): the zone's centre (snapped to
///   the grid, when there is one), accuracy the radius plus that snap's offset, and at least the
///   grid size.
/// - Elsewhere, with a grid: the centre of the position's cell; accuracy the grid size, or the fix's
///   own accuracy rounded up to a whole number of grid sizes when that is larger.
/// - Whenever a fix is blurred (in a zone or on a grid), altitude, speed and course are not shared:
///   each narrows the position down within the blur (altitude against a terrain map, speed and
///   course by dead reckoning between updates). The time is kept.
/// - Outside every zone and without a grid: the fix as it is.
public struct PrivacyFilter: Sendable, Equatable {
    /// Positions are snapped to this grid; nil for exact positions.
    public var grid: PrivacyGrid?
    /// Places where the share says only "in this zone", checked in order.
    public var zones: [PrivacyZone]

    public init(grid: PrivacyGrid? = nil, zones: [PrivacyZone] = []) {
        self.grid = grid
        self.zones = zones
    }

    /// No privacy: every fix is shared as it is.
    public static let off = PrivacyFilter()

    /// Whether every fix is shared as it is.
    public var isOff: Bool { grid == nil && zones.isEmpty }

    /// The fix as a share reveals it (see the type's documentation).
    public func shared(_ fix: Fix) -> Fix {
        if isOff { return fix }
        var shared: Fix
        if let zone = zones.first(where: { $0.contains(latitude: fix.latitude, longitude: fix.longitude) }) {
            shared = Fix(time: fix.time, latitude: zone.latitude, longitude: zone.longitude, mode: fix.mode)
            var accuracy = zone.radiusMeters
            if let grid {
                let centre = grid.snap(latitude: zone.latitude, longitude: zone.longitude)
                shared.latitude = centre.latitude
                shared.longitude = centre.longitude
                accuracy += greatCircleDistanceMeters(zone.latitude, zone.longitude, centre.latitude, centre.longitude)
                accuracy = max(accuracy.rounded(.up), grid.sizeMeters)
            }
            shared.horizontalAccuracyMeters = accuracy
        } else if let grid {
            let cell = grid.snap(latitude: fix.latitude, longitude: fix.longitude)
            shared = Fix(time: fix.time, latitude: cell.latitude, longitude: cell.longitude, mode: fix.mode)
            let steps = ((fix.horizontalAccuracyMeters ?? 0) / grid.sizeMeters).rounded(.up)
            shared.horizontalAccuracyMeters = grid.sizeMeters * max(1, steps.isFinite ? steps : 1)
        } else {
            return fix
        }
        return shared
    }
}
