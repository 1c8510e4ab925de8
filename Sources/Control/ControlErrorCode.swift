/// The error codes of `{"ok":false,"error":{"code":…}}`.
package enum ControlErrorCode: String, Codable, Sendable, CaseIterable {
    /// Not JSON, not an object, or a field of the wrong type.
    case badRequest = "bad-request"
    /// The request line exceeds the size limit; the connection is closed.
    case tooLarge = "too-large"
    /// No complete request within the request timeout; the connection is closed.
    case timeout
    /// `v` is missing or not a version this daemon speaks.
    case unsupportedVersion = "unsupported-version"
    /// `op` is missing or not one of start, stop, status, track, extend (over MQTT: start, stop, extend).
    case unknownOperation = "unknown-op"
    /// `duration` is missing or not 15m, 1h or 8h.
    case badDuration = "bad-duration"
    /// The caller is neither root nor in the control group.
    case forbidden
    /// Too many connections (the caller's or everyone's) are open; the connection is closed. Over
    /// MQTT: too many commands are waiting their turn (or the daemon is stopping); this one was not
    /// done. Try again.
    case busy
    /// The daemon failed to do it (e.g. could not persist the share).
    case `internal`
    /// `track`: no track of that share (never recorded, past `track.retention`, or tracks off).
    case notFound = "not-found"
    /// `start`: the source has ended (a replayed log without `replay.loop`): a share would wait
    /// for a position that never comes.
    case sourceEnded = "source-ended"
    /// `start`: the caller's `id` is one a share of this daemon's journal already had (active,
    /// ended, or before a restart). An event id `evt_<id>_<seq>` names one content forever, so an
    /// id starts one share only: choose another.
    case idUsed = "id-used"
    /// `extend`: no share is active.
    case noShare = "no-share"
    /// `extend`: the active share's time is up; its final update and `ended` are on their way.
    case ending
}
