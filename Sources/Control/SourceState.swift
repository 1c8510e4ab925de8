/// Where the source stands.
package enum SourceState: String, Codable, Sendable, CaseIterable {
    case connecting
    case connected
    case disconnected
    /// A replayed log ran out (without `replay.loop`).
    case ended
}
