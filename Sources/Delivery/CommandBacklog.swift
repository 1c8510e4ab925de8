/// How many commands wait for the daemon, bounded: each command that arrives on a destination's
/// command channel (MQTT's `<prefix>/<device>/command`) is either taken (handed to the one consumer, which says when it is
/// done with it) or, when `capacity` are already handed over and not done, refused at once, to be
/// answered `busy` (docs/formats.md). Nothing is dropped unanswered. No backpressure instead (for
/// MQTT): libmosquitto 2.0 has no manual acknowledgement (it sends the PUBACK itself when it handles the
/// PUBLISH), so a command cannot be left with the broker until there is room for it, and the loop
/// thread must not wait in the message callback for the consumer either (it also writes the
/// replies, the events and the keepalive).
///
/// Pure: the channel (MQTT's connection) keeps it under a lock and acts on what it returns (CommandBacklogTests).
package struct CommandBacklog: Sendable, Equatable {
    /// Commands waiting at most, the one being done included: a person's buttons make few; a burst
    /// (what the broker kept for livelocd's session while it was away) is answered `busy` beyond it.
    package static let defaultCapacity = 32

    /// Why a command was refused, for its reply and the log.
    package struct Refusal: Sendable, Equatable {
        package enum Reason: Sendable, Equatable {
            /// `capacity` commands are waiting.
            case full
            /// Nobody takes commands any more (the daemon is stopping).
            case closed
        }
        package var reason: Reason
        /// Commands waiting when it came.
        package var waiting: Int
        /// Commands refused since start, this one included.
        package var refusedSinceStart: Int

        package init(reason: Reason, waiting: Int, refusedSinceStart: Int) {
            self.reason = reason
            self.waiting = waiting
            self.refusedSinceStart = refusedSinceStart
        }
    }

    /// A burst of commands that overflowed, ended: the backlog is empty again.
    package struct Burst: Sendable, Equatable {
        /// Commands taken since the backlog was last empty.
        package var taken: Int
        /// Commands refused since the backlog was last empty.
        package var refused: Int

        package init(taken: Int, refused: Int) {
            self.taken = taken
            self.refused = refused
        }
    }

    package enum Admission: Sendable, Equatable {
        /// Hand it to the consumer (then `notHanded` if the consumer is gone).
        case take
        /// Answer it now, without doing it.
        case refuse(Refusal)
    }

    package let capacity: Int
    /// Handed to the consumer and not done yet.
    package private(set) var waiting = 0
    package private(set) var refusedSinceStart = 0
    private var burst = Burst(taken: 0, refused: 0)

    package init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(capacity, 1)
    }

    /// A command arrived.
    package mutating func arrived() -> Admission {
        guard waiting < capacity else { return .refuse(refuse(.full)) }
        waiting += 1
        burst.taken += 1
        return .take
    }

    /// A command `arrived` let in could not be handed over: the consumer is gone.
    package mutating func notHanded() -> Refusal {
        waiting -= 1
        burst.taken -= 1
        return refuse(.closed)
    }

    /// The consumer is done with a command (done, repeated or ignored). Returns the burst when it
    /// emptied the backlog after refusals, nil otherwise.
    package mutating func done() -> Burst? {
        guard waiting > 0 else { return nil }
        waiting -= 1
        guard waiting == 0 else { return nil }
        defer { burst = Burst(taken: 0, refused: 0) }
        return burst.refused > 0 ? burst : nil
    }

    private mutating func refuse(_ reason: Refusal.Reason) -> Refusal {
        refusedSinceStart += 1
        burst.refused += 1
        return Refusal(reason: reason, waiting: waiting, refusedSinceStart: refusedSinceStart)
    }
}
