/// What the broadcaster emits; destinations deliver these, in order.
public enum ShareEvent: Sendable, Equatable {
    /// A new position for the share, or its final update (`location.isActive == false`).
    case updated(shareID: ShareID, seq: Int, location: LiveLocation)
    /// The share is over; no event of this share follows.
    case ended(shareID: ShareID, seq: Int, reason: EndReason)

    /// Why a share ended.
    public enum EndReason: String, Sendable, Equatable, Codable {
        /// Its duration ran out.
        case expired
        /// A user stopped it.
        case stopped
        /// A new share was started while it was active.
        case superseded
        /// The source has no more fixes (a replayed log ran out).
        case sourceEnded = "source-ended"
    }

    public var shareID: ShareID {
        switch self {
        case .updated(let id, _, _), .ended(let id, _, _): id
        }
    }

    /// The event's number within its share: 1, 2, 3, …
    public var seq: Int {
        switch self {
        case .updated(_, let seq, _), .ended(_, let seq, _): seq
        }
    }

    /// True for the `ended` event and for the final `updated` that precedes it.
    public var isFinal: Bool {
        switch self {
        case .ended: true
        case .updated(_, _, let location): !location.isActive
        }
    }
}
