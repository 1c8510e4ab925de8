import LiveLocation

/// A durable destination: a far end that must get every share event, in order, at least once
/// (webhook, MQTT, Telegram, Traccar). It is to the pipeline what a `LogHandler` is to a `Logger`:
/// one implementation per file (or module), nothing else to touch.
///
/// The pipeline owns durability and order. Each batch of events is committed to the journal before
/// any destination sees it; a `DestinationRunner` then takes the destination's own queue in order
/// (the entries each commit queued, handed on with it; read back from the journal after a gap),
/// calls `send` for each event (never more than `queue.maxInFlight` unacknowledged), and acts on the
/// `DeliveryOutcome` it gets back: advance the queue, wait and send again, drop, or stop. A
/// destination therefore only formats an event for its wire, puts it on the wire, and classifies
/// what came back, ideally with a pure function that a test can call without a network.
package protocol Destination: Sendable {
    /// The destination's kind, in logs and in `liveloc status`: stable across versions ("webhook", "mqtt").
    var name: String { get }
    /// The receiver this destination addresses, with no secret in it: its kind, then what
    /// addresses the far end ("webhook https://example.net/hook", "telegram bot 123 chat @me").
    /// The journal keeps one queue per identity: an event queued for one receiver is delivered to
    /// that receiver or to nobody, whatever runs later with the same state directory. Changing a
    /// secret (a webhook key rotation, a new MQTT password) leaves the identity as it is.
    var identity: String { get }
    /// How the journal queues events for this destination.
    var queue: QueuePolicy { get }
    /// Starts sending `event` and returns at once, without blocking (blocking I/O runs on the
    /// destination's own thread or queue). The runner calls it in queue order; a destination with
    /// `maxInFlight > 1` must put events on the wire in the order of the calls. The outcome is
    /// reported exactly once through the receipt, from any thread.
    func send(_ event: QueuedEvent) -> DeliveryReceipt
    /// Keeps the connection (if the destination has one) until the task is cancelled; then
    /// disconnects cleanly. Returns at once for destinations without a connection. Throws only for
    /// a failure that must stop the daemon.
    func run() async throws
    /// The connection's state for `liveloc status`, nil for destinations without a lasting connection.
    var link: LinkState? { get }
    /// The link viewers open for `share` (the `link` destination's `RELAY/s/ID#KEY`), once it is
    /// made (at the share's first event): it holds the share's key, so `liveloc status` shows it to
    /// its caller and no log line does. nil for every other destination.
    func shareLink(for share: ShareID) -> String?
    /// The thread of the destination's blocking I/O, if it has one (an HTTP client's): its runner
    /// runs there too (a task executor preference), so that handing an event over and being
    /// resumed by its outcome wakes no other thread. nil: the runner runs on the journal's thread.
    var executor: (any TaskExecutor)? { get }
    /// Where the destination takes commands for the daemon, when it is configured to (MQTT with
    /// `mqtt.commands`); nil for every other destination.
    var commandChannel: (any CommandChannel)? { get }
}

extension Destination {
    package func run() async throws {}
    package var link: LinkState? { nil }
    package func shareLink(for share: ShareID) -> String? { nil }
    package var executor: (any TaskExecutor)? { nil }
    package var commandChannel: (any CommandChannel)? { nil }
}

/// One event as a destination's queue holds it.
package struct QueuedEvent: Sendable, Equatable {
    /// The event's place in the journal: strictly increasing in queue order.
    package var position: Int64
    package var event: ShareEvent
    /// The event as a JSON object (the stdout line without its newline; the webhook's body).
    package var json: [UInt8]
    /// The state this destination kept with its last acknowledgement (see `DeliveryOutcome.delivered`),
    /// e.g. Telegram's message id of the share; nil when it never kept any.
    package var destinationState: [UInt8]?

    package init(position: Int64, event: ShareEvent, json: [UInt8], destinationState: [UInt8]? = nil) {
        self.position = position
        self.event = event
        self.json = json
        self.destinationState = destinationState
    }

    /// A key that is the same for every attempt and every restart, and different for every event:
    /// `evt_<shareId>_<seq>` (the webhook's `webhook-id`).
    package var idempotencyKey: String { "evt_\(event.shareID.rawValue)_\(event.seq)" }
}

/// What became of one `send`.
package enum DeliveryOutcome: Sendable, Equatable {
    /// The far end has it. `state`, when not nil, replaces the state the destination keeps in the
    /// journal (committed with the acknowledgement, handed back in later `QueuedEvent`s).
    case delivered(state: [UInt8]? = nil)
    /// Not delivered this time (transport error, 5xx, broker away): send it again after `after`,
    /// or after the runner's backoff when nil. Counted as a failed attempt.
    case retry(reason: String, after: Duration? = nil)
    /// Not sent, and not a failure: the destination cannot take it yet (a rate limit of its own).
    /// The runner asks again after `after`, re-reading the queue first, so that a `latest` backlog
    /// sends the newest position then.
    case notYet(after: Duration)
    /// The far end refuses this payload for good: the runner drops it (counted, logged) and goes on.
    /// A destination that must never drop a share's end returns `retry` for final events instead.
    case refused(reason: String)
    /// Nothing can be delivered until the daemon is restarted (410 Gone, an unknown device id):
    /// the runner stops this destination; its events stay queued.
    case disabled(reason: String)
}

/// The state of a destination's lasting connection (an MQTT broker's), for `liveloc status`.
package enum LinkState: Sendable, Equatable {
    case connecting
    case connected
    /// The far end refused the connection: `reason` says why (not authorized, bad certificate,
    /// unreachable, with the broker's reason code when there is one).
    case refused(reason: String)
    /// Lost or closed; reconnecting after a backoff.
    case disconnected(reason: String)
}
