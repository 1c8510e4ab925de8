/// What the formatter remembers between events: whether a share is active (from the last event
/// formatted), and what the current connection last said on the availability topic. The connection
/// calls `connectionStarted()` on every new connection.
package struct MQTTPublishState: Sendable, Equatable {
    /// True after an active update, false after a final update or `ended`; nil before any event.
    package var shareActive: Bool?
    /// `true` once this connection published `online`, `false` once it published `offline`; nil
    /// when it published neither (the broker may hold the last will's `offline`).
    package var announcedAvailability: Bool?

    package init(shareActive: Bool? = nil, announcedAvailability: Bool? = nil) {
        self.shareActive = shareActive
        self.announcedAvailability = announcedAvailability
    }

    /// A new connection: nothing announced on it yet.
    package mutating func connectionStarted() {
        announcedAvailability = nil
    }
}
