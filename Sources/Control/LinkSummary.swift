/// A destination's lasting connection (an MQTT broker's) as `status` shows it.
package struct LinkSummary: Codable, Sendable, Equatable {
    package var state: LinkPhase
    /// Why it is refused or disconnected.
    package var reason: String?

    package init(state: LinkPhase, reason: String? = nil) {
        self.state = state
        self.reason = reason
    }
}

/// Where a destination's connection stands.
package enum LinkPhase: String, Codable, Sendable, CaseIterable {
    case connecting
    case connected
    /// The far end refused it (not authorized, bad certificate, unreachable).
    case refused
    /// Lost or closed; reconnecting after a backoff.
    case disconnected
}
