import LiveLocation

/// The share that ended last, as `status` shows it while no share is active (since livelocd started).
package struct EndedShareSummary: Codable, Sendable, Equatable {
    package var id: String
    package var startedAt: String
    /// When it ended (its expiry, when it expired), on the share's clock.
    package var endedAt: String
    /// `expired`, `stopped`, `superseded` or `source-ended`.
    package var reason: String

    package init(_ share: EndedShare) {
        id = share.id.rawValue
        startedAt = share.startedAt.iso8601
        endedAt = share.endedAt.iso8601
        reason = share.reason.rawValue
    }
}
