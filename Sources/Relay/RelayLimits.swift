/// The relay's bounds: what one share, all shares and the ended ones may hold.
package struct RelayLimits: Sendable, Equatable {
    /// Events one share keeps (its trail); beyond it the oldest go. An 8 h share at 1 Hz is 28,800.
    package var eventsPerShare = 36_000
    /// Bytes of events one share keeps (SSE frames as sent); beyond it the oldest go. An 8 h share at
    /// 1 Hz with ~500-byte frames is 14.4 MB.
    package var bytesPerShare = 24 << 20
    /// Largest sealed event accepted (a post's body).
    package var bodyBytes = 16 << 10
    /// Shares live at once; a new one beyond it is refused (503) until one ends.
    package var shares = 256
    /// Bytes of all live shares' events; a post that would pass it is refused (503: the device retries).
    package var totalBytes = 512 << 20
    /// How long an ended share's page still shows its final position and "ended".
    package var endedRetentionSeconds: Int64 = 3600
    /// How long an id is then still answered 410 Gone (only the id is kept), before it is forgotten.
    package var goneRetentionSeconds: Int64 = 7 * 86_400
    /// Ids kept for 410 Gone; the oldest are forgotten first beyond it.
    package var goneIDs = 65_536
    /// A share whose device posts nothing past its expiry (its time left as of its last post) and
    /// this grace ends there (`end` without data).
    package var expiryGraceSeconds: Int64 = 900
    /// How far a post's timestamp may be from the relay's clock.
    package var timestampToleranceSeconds: Int64 = 300
    /// Unknown ids one address may ask for in a burst, and per minute after it.
    package var unknownBurst = 20
    package var unknownPerMinute = 10

    package init() {}
}
