/// A share that has ended: what `liveloc status` shows once no share is active.
public struct EndedShare: Sendable, Equatable, Codable {
    public var id: ShareID
    public var startedAt: Timestamp
    /// When it ended (its expiry, when it expired), on the share's clock.
    public var endedAt: Timestamp
    public var reason: ShareEvent.EndReason

    public init(id: ShareID, startedAt: Timestamp, endedAt: Timestamp, reason: ShareEvent.EndReason) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.reason = reason
    }
}
