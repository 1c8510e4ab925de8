/// Where a queued destination's delivery stands.
package enum DeliveryState: String, Codable, Sendable, CaseIterable {
    /// Delivering, or waiting for events.
    case active
    /// The last attempt failed; the next comes after a backoff.
    case retrying
    /// The far end refused the last event for good (a 4xx): it was dropped, and the next is sent.
    case refusing
    /// Stopped for good until a restart (the far end said 410 Gone, or an unknown device).
    case disabled
}
