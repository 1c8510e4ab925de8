import SystemIO

/// The source's state as `status` shows it. Its texts (gpsd's error messages among them) are made
/// one line without control characters when it is made (`oneLineText`).
package struct SourceStatus: Codable, Sendable, Equatable {
    /// What kind of source: `gpsd`, `replay`, `serial`, … (a name, as the configuration's `source` spells it).
    package var kind: String
    package var state: SourceState
    /// Whether a fix arrived recently (the daemon's freshness bound, 10 s).
    package var fix: Bool
    /// The newest fix's time, ISO 8601.
    package var lastFixTime: String?
    /// Seconds since the newest fix arrived (monotonic clock).
    package var lastFixAgeSeconds: Double?
    package var fixesReceived: Int
    /// The last error the source reported, if any.
    package var lastError: String?
    /// More than `state` where the source can say it: a serial receiver's rate
    /// (`open at 9600 baud (detected)`, `open, detecting baud rate`) or `waiting for device`.
    package var detail: String?

    package init(kind: String, state: SourceState, fix: Bool, lastFixTime: String?, lastFixAgeSeconds: Double?,
                 fixesReceived: Int, lastError: String?, detail: String? = nil) {
        self.kind = oneLineText(kind)
        self.state = state
        self.fix = fix
        self.lastFixTime = lastFixTime
        self.lastFixAgeSeconds = lastFixAgeSeconds
        self.fixesReceived = fixesReceived
        self.lastError = lastError.map(oneLineText)
        self.detail = detail.map(oneLineText)
    }
}
