/// What the journal does, when it opens, with the queues of destinations that are not configured
/// now: their **leftovers** (a receiver that was down when the last run ended, a destination whose
/// address changed). A queue belongs to one receiver (`Destination.identity`); its events are
/// never handed to another one unless the user says so with `redirect`.
package enum LeftoverPolicy: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Keep them for a later run with that destination (the default); reported at open.
    case keep
    /// Remove them for good (logged with their count).
    case discard
    /// Hand them to the destination of the same kind configured now (when there is exactly one):
    /// the user's explicit say-so that the new address is the same party as the old one.
    case redirect

    package var description: String { rawValue }
}

/// The undelivered events of a destination not configured now, as the journal keeps them.
package struct LeftoverQueue: Sendable, Equatable, CustomStringConvertible {
    /// The receiver they were queued for (`Destination.identity`), or a bare kind ("webhook") for
    /// queues an earlier version made without recording the receiver.
    package var identity: String
    package var events: Int

    package init(identity: String, events: Int) {
        self.identity = identity
        self.events = events
    }

    /// The destination kind: the identity's first word.
    package var kind: Substring { identity.prefix { $0 != " " } }

    /// Who the events are for, in words: the identity, or what is known of a queue an earlier version made.
    package var receiver: String {
        identity.contains(" ") ? identity : "\(identity) (queued by an earlier version; its receiver was not recorded)"
    }

    /// "32 event(s) for webhook http://…/a wait in the journal".
    package var description: String { "\(events) event(s) for \(receiver) wait in the journal" }
}
