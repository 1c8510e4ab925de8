import Delivery

/// Where and how the `link` destination posts: one relay, the device's secret, where the shares'
/// keys are kept.
package struct LinkConfiguration: Sendable {
    /// The relay's base URL (`https://relay.example.net`): links are `RELAY/s/ID#KEY`, posts go
    /// to `RELAY/api/v1/events`.
    package var relayURL: String
    /// The secret the posts are signed with (one line of the relay's secret file).
    package var secret: [UInt8]
    /// Where each share's link (id and key) is kept, mode 0600, from its first event until its
    /// end is delivered, so that a restarted daemon goes on under the same link; nil: in memory
    /// only (`liveloc share`).
    package var keyDirectory: String?
    package var caFile: String?
    package var timeout: Duration
    package var maxEvents: Int
    package var maxBytes: Int
    /// While a share is live and nothing was posted for it for this long, a heartbeat (`alive`:
    /// the device is on; whether it has a fix, and since when none) is posted, again after as long:
    /// viewers tell "no GPS fix" from "device offline". Zero: none.
    package var aliveInterval: Duration = .seconds(60)
    /// Bytes of sealed updates kept per share (the newest), to send a relay that restarted
    /// mid-share (it answers 202, or 404 to a heartbeat) the trail it lost; 8 MiB keeps an 8 h
    /// share at 1 Hz of ~300-byte sealed updates.
    package var keptTrailBytes = 8 << 20

    package init(relayURL: String, secret: [UInt8], keyDirectory: String? = nil, caFile: String? = nil,
                 timeout: Duration = .seconds(10), maxEvents: Int = 100_000, maxBytes: Int = 64 << 20) {
        self.relayURL = relayURL
        self.secret = secret
        self.keyDirectory = keyDirectory
        self.caFile = caFile
        self.timeout = timeout
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
    }
}
