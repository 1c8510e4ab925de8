/// Everything needed to carry an active share across a restart of the daemon.
public struct ShareSnapshot: Sendable, Equatable, Codable {
    public var id: ShareID
    public var startedAt: Timestamp
    public var expiresAt: Timestamp
    /// The newest position, sent or throttled.
    public var lastFix: Fix?
    /// The position of the last `updated` sent, the throttle's reference.
    public var lastSentFix: Fix?
    /// The seq of the last event emitted (0 before the first).
    public var seq: Int
    /// How many `updated` events the share has emitted.
    public var updatesSent: Int
    /// Which clock `startedAt` and `expiresAt` are on, and the boot and UTC at boot that find the
    /// expiry on the time since boot; nil for a share on a timeline of its own (a replay) and for
    /// one persisted before it was recorded (resumed on the clock as it is, as then).
    public var timeBase: ShareTimeBase?

    public init(id: ShareID, startedAt: Timestamp, expiresAt: Timestamp, lastFix: Fix? = nil,
                lastSentFix: Fix? = nil, seq: Int = 0, updatesSent: Int = 0, timeBase: ShareTimeBase? = nil) {
        self.id = id
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.lastFix = lastFix
        self.lastSentFix = lastSentFix
        self.seq = seq
        self.updatesSent = updatesSent
        self.timeBase = timeBase
    }
}
