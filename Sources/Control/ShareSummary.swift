import LiveLocation

/// A share as the control protocol shows it.
package struct ShareSummary: Codable, Sendable, Equatable {
    package var id: String
    package var startedAt: String
    package var expiresAt: String
    /// Time left on the share's clock, seconds.
    package var secondsLeft: Double?
    package var seq: Int
    package var updatesSent: Int
    package var lastPosition: Position?

    package struct Position: Codable, Sendable, Equatable {
        /// WGS 84 decimal degrees.
        package var latitude: Double
        package var longitude: Double
        /// The fix's time.
        package var time: String
    }

    /// The share `snapshot` shows; `now` (on the share's clock) gives `secondsLeft`; `privacy` is the
    /// share's privacy filter: `lastPosition` is the position as shared.
    package init(_ snapshot: ShareSnapshot, now: Timestamp?, privacy: PrivacyFilter = .off) {
        id = snapshot.id.rawValue
        startedAt = snapshot.startedAt.iso8601
        expiresAt = snapshot.expiresAt.iso8601
        secondsLeft = now.map { max(0, Double((snapshot.expiresAt - $0).wholeMilliseconds) / 1000) }
        seq = snapshot.seq
        updatesSent = snapshot.updatesSent
        lastPosition = snapshot.lastFix.map(privacy.shared).map {
            Position(latitude: $0.latitude, longitude: $0.longitude, time: $0.time.iso8601)
        }
    }
}
