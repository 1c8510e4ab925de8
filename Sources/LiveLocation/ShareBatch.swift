/// What the broadcaster hands on: the events of one or more inputs, in order, and the share's state
/// after them. State travels with the events: whoever persists a batch writes both in one go and
/// never asks the broadcaster what it meant.
public struct ShareBatch: Sendable, Equatable {
    /// The events, in order; empty when the inputs changed only the state (a start with no share to
    /// supersede).
    public var events: [ShareEvent]
    /// The active share after these events (its seq is the last event's), nil when none is active.
    public var share: ShareSnapshot?
    /// The number of the last input in the batch (1, 2, 3, …). `start`, `stop` and `resume` return
    /// theirs, so a caller can wait until the batch holding it is committed.
    public var through: UInt64
    /// The fixes the active share accepted since the last batch, throttled ones included, in order:
    /// the share's track (only from a broadcaster that records tracks).
    public var fixes: [TrackedFix]

    public init(events: [ShareEvent], share: ShareSnapshot?, through: UInt64, fixes: [TrackedFix] = []) {
        self.events = events
        self.share = share
        self.through = through
        self.fixes = fixes
    }
}
