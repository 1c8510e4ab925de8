/// What the broadcaster emits; sinks deliver these, in order.
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

/// Receives a broadcaster's events and delivers them somewhere: stdout, a webhook, …
public protocol EventSink: Sendable {
    /// Delivers (or durably queues) one event. Events arrive in order; an error is the sink's to report.
    func deliver(_ event: ShareEvent) async throws

    /// Delivers events that are all available at once, in order: a sink that can write them in
    /// one go (stdout: one `write`) does. By default, one `deliver(_:)` each.
    func deliver(contentsOf events: ArraySlice<ShareEvent>) async throws
}

extension EventSink {
    public func deliver(contentsOf events: ArraySlice<ShareEvent>) async throws {
        for event in events { try await deliver(event) }
    }
}
