import LiveLocation

/// How an `extend` moved the active share's end, as the control protocol shows it.
package struct ExtensionSummary: Codable, Sendable, Equatable {
    /// Where the share ended before (ISO 8601).
    package var previousExpiresAt: String
    /// The amount asked for would have ended it more than 8 h from now: it ends 8 h from now.
    package var capped: Bool

    package init(previousExpiresAt: Timestamp, capped: Bool) {
        self.previousExpiresAt = previousExpiresAt.iso8601
        self.capped = capped
    }
}
