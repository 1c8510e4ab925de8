import Delivery
import SystemIO

/// One destination's state (stdout's, a queued one's) as `status` shows it. Its texts (errors, often a remote
/// server's words) are made one line without control characters when it is made (`oneLineText`).
package struct DestinationSummary: Codable, Sendable, Equatable {
    /// `stdout`, `webhook`, … (the destination's queue name).
    package var name: String
    /// Events written (standard output). For a queued destination this counts events
    /// handed to its queue; `delivery` says what became of them.
    package var delivered: Int
    package var failed: Int
    package var lastError: String?
    /// For destinations with a queue of their own (the webhook): what is still to be delivered.
    package var delivery: Delivery?
    /// For destinations with a lasting connection (MQTT): its state.
    package var link: LinkSummary?
    /// For the `link` destination: the active share's link `RELAY/s/ID#KEY` (from its first event on). It holds the key:
    /// shown to `status`'s caller (the control socket's peers are checked), never logged.
    package var shareLink: String?

    package init(name: String, delivered: Int, failed: Int, lastError: String?, delivery: Delivery? = nil,
                 link: LinkSummary? = nil) {
        self.name = oneLineText(name)
        self.delivered = delivered
        self.failed = failed
        self.lastError = lastError.map(oneLineText)
        self.delivery = delivery
        self.link = link
    }

    package struct Delivery: Codable, Sendable, Equatable {
        package var state: DeliveryState
        /// Events queued, not yet acknowledged by the far end.
        package var pending: Int
        /// Events the far end acknowledged.
        package var acknowledged: Int
        /// Events dropped (superseded by the backlog policy, over the queue's bound, refused for good).
        package var dropped: Int
        package var lastError: String?
        /// True when the queue keeps only the newest position (backlog `latest`, Telegram): `dropped`
        /// then counts positions coalesced into a newer one (and any the far end refused for good),
        /// shown as "coalesced". Absent otherwise.
        package var coalesces: Bool?

        package init(state: DeliveryState, pending: Int, acknowledged: Int, dropped: Int, lastError: String?,
                     coalesces: Bool = false) {
            self.state = state
            self.pending = pending
            self.acknowledged = acknowledged
            self.dropped = dropped
            self.lastError = lastError.map(oneLineText)
            self.coalesces = coalesces ? true : nil
        }
    }
}
