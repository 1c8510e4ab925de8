import SystemIO

/// A destination's lasting connection (an MQTT broker's) as `status` shows it; its reason (a
/// broker's words) made one line without control characters (`oneLineText`).
package struct LinkSummary: Codable, Sendable, Equatable {
    package var state: LinkPhase
    /// Why it is refused or disconnected.
    package var reason: String?

    package init(state: LinkPhase, reason: String? = nil) {
        self.state = state
        self.reason = reason.map(oneLineText)
    }
}
