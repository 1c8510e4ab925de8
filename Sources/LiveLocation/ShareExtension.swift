/// What asking to extend the active share came to (`LiveLocationBroadcaster.extend`).
public enum ShareExtension: Sendable, Equatable {
    /// The share now ends at `share.expiresAt` (it ended at `previousExpiresAt`). `capped`: the
    /// amount asked for would have ended it more than `ShareDuration.longest` from now, so it ends
    /// exactly that long from now (which may be where it already ended).
    case extended(ShareSnapshot, previousExpiresAt: Timestamp, capped: Bool)
    /// Refused: no share is active.
    case noActiveShare
    /// Refused: the active share's time is up; its final update and `ended` are on their way.
    case ending(ShareID)
}
