/// Drops fixes that add too little: too soon after, or too near to, the last update sent, unless
/// the course turned (the Traccar client's angle filter: turns stay sharp at a low rate).
///
/// A share's first fix and its final update are never dropped. All limits off by default.
public struct Throttle: Sendable, Equatable {
    /// Fixes less than this after the last update's fix are dropped.
    public var minInterval: Duration?
    /// Fixes closer than this to the last update's position are dropped, metres. With a privacy
    /// filter, both positions are compared as shared.
    public var minDistanceMeters: Double?
    /// A fix whose course differs from the last update's by more than this, degrees, is sent even
    /// when the limits above would drop it. Both courses must be known; the difference is the
    /// shorter way round (350° to 10° is 20°).
    public var minAngleDegrees: Double?

    public init(minInterval: Duration? = nil, minDistanceMeters: Double? = nil, minAngleDegrees: Double? = nil) {
        self.minInterval = minInterval
        self.minDistanceMeters = minDistanceMeters
        self.minAngleDegrees = minAngleDegrees
    }

    /// No throttling: every accepted fix is an update.
    public static let off = Throttle()

    /// Whether no limit drops anything (the angle alone only ever keeps fixes).
    var isOff: Bool { minInterval == nil && minDistanceMeters == nil }

    func drops(_ fix: Fix, after lastSent: Fix?) -> Bool {
        guard let lastSent else { return false }
        let tooSoon = minInterval.map { fix.time - lastSent.time < $0 } ?? false
        let tooNear = minDistanceMeters.map { fix.distanceMeters(to: lastSent) < $0 } ?? false
        guard tooSoon || tooNear else { return false }
        return !turned(from: lastSent, to: fix)
    }

    /// Whether the course turned by more than `minAngleDegrees` since `lastSent`.
    private func turned(from lastSent: Fix, to fix: Fix) -> Bool {
        guard let minAngleDegrees, let from = lastSent.courseDegreesTrue, let to = fix.courseDegreesTrue,
              from.isFinite, to.isFinite else { return false }
        let difference = abs(to - from).truncatingRemainder(dividingBy: 360)
        return min(difference, 360 - difference) > minAngleDegrees
    }
}
