/// How the journal queues events for one destination: how many may be in flight, which stale ones
/// it may skip, and how large its backlog may grow.
package struct QueuePolicy: Sendable, Equatable {
    /// Most events sent but not yet acknowledged at once (1: strictly one request at a time).
    package var maxInFlight: Int
    /// Which undelivered events to keep when a share moves on during an outage.
    package var backlog: BacklogPolicy
    /// Most events the queue holds; beyond it the oldest non-final updates are dropped.
    package var maxEvents: Int
    /// Most event bytes (JSON lines) the queue holds; beyond it the oldest non-final updates are dropped.
    package var maxBytes: Int
    /// Identities an earlier version gave this queue's receiver (`Destination.identity`): a queue
    /// the journal holds under one of them is this queue, renamed when the journal opens, provided
    /// that no other destination configured now claims it too.
    package var formerIdentities: [String]

    package init(maxInFlight: Int = 1, backlog: BacklogPolicy = .all, maxEvents: Int = 100_000, maxBytes: Int = 64 << 20,
                 formerIdentities: [String] = []) {
        self.maxInFlight = max(1, maxInFlight)
        self.backlog = backlog
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
        self.formerIdentities = formerIdentities
    }
}

/// What the outbox keeps of a share that produces updates faster than they can be delivered.
package enum BacklogPolicy: String, Sendable, Equatable, CaseIterable {
    /// Every event is delivered (within the outbox's bounds).
    case all
    /// Queuing an `updated` event drops the same share's older undelivered non-final updates; the
    /// final update and `ended` are always kept.
    case latest
}
