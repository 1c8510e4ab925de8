/// What the formatter remembers between events: whether a share is active (from the last event
/// formatted), and what the current connection last said on the availability topic. The connection
/// calls `connectionStarted()` on every new connection.
package struct MQTTPublishState: Sendable, Equatable {
    /// True after an active update, false after a final update or `ended`; nil before any event.
    package var shareActive: Bool?
    /// `true` once this connection published `online`, `false` once it published `offline`; nil
    /// when it published neither (the broker may hold the last will's `offline`).
    package var announcedAvailability: Bool?
    /// Home Assistant: the active share's time left as its last update said it, for the "Minutes
    /// left" counted down between updates; nil without an active share.
    package var countdown: ShareCountdown?

    package struct ShareCountdown: Sendable, Equatable {
        /// The share's time left when the last update's fix was taken.
        package var millisecondsLeft: Int64
        package var batteryLevel: Int?
        /// The minutes left last published.
        package var minutesSaid: Int
    }

    package init(shareActive: Bool? = nil, announcedAvailability: Bool? = nil) {
        self.shareActive = shareActive
        self.announcedAvailability = announcedAvailability
    }

    /// A new connection: nothing announced on it yet.
    package mutating func connectionStarted() {
        announcedAvailability = nil
    }
}
