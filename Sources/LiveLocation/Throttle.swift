/// Drops fixes that add too little: too soon after, or too near to, the last update sent.
///
/// A share's first fix and its final update are never dropped. Both limits off by default.
public struct Throttle: Sendable, Equatable {
    /// Fixes less than this after the last update's fix are dropped.
    public var minInterval: Duration?
    /// Fixes closer than this to the last update's position are dropped, metres. With a privacy
    /// filter, both positions are compared as shared.
    public var minDistanceMeters: Double?

    public init(minInterval: Duration? = nil, minDistanceMeters: Double? = nil) {
        self.minInterval = minInterval
        self.minDistanceMeters = minDistanceMeters
    }

    /// No throttling: every accepted fix is an update.
    public static let off = Throttle()

    /// Whether both limits are off (no fix is ever dropped).
    var isOff: Bool { minInterval == nil && minDistanceMeters == nil }

    func drops(_ fix: Fix, after lastSent: Fix?) -> Bool {
        guard let lastSent else { return false }
        if let minInterval, fix.time - lastSent.time < minInterval { return true }
        if let minDistanceMeters, fix.distanceMeters(to: lastSent) < minDistanceMeters { return true }
        return false
    }
}
