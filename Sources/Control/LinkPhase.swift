/// Where a destination's connection stands.
package enum LinkPhase: String, Codable, Sendable, CaseIterable {
    case connecting
    case connected
    /// The far end refused it (not authorized, bad certificate, not TLS, unreachable).
    case refused
    /// Lost or closed; reconnecting after a backoff.
    case disconnected
}
