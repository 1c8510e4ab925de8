import GPSD
import Serial

/// The kinds of location source, in one table beside the destinations' (DestinationKinds): livelocd's
/// `source =` and `liveloc share`'s `--gpsd`, `--replay` and `--serial` name one of these, and
/// `SourcePlan.make` opens any of them, for both. A new kind is one case here, its settings in
/// `SourceSettings` and its case in `SourcePlan.make`.
package enum SourceKind: String, Sendable, Equatable, CaseIterable {
    case gpsd
    case replay
    case serial
}

/// What opens a source: its kind and that kind's settings (the others' are not read).
package struct SourceSettings: Sendable, Equatable {
    package var kind: SourceKind
    package var gpsd = GPSDEndpoint(host: "127.0.0.1", port: 2947)
    /// The one device of gpsd's to watch; nil: all.
    package var gpsdDevice: String?
    package var replayFile: String?
    /// How many times faster than real time; 0 = as fast as possible.
    package var replaySpeed = 1.0
    package var replayLoop = false
    /// The serial receiver's device, e.g. `/dev/serial/by-id/usb-…`.
    package var serialDevice: String?
    package var serialBaud = SerialBaud.automatic

    package init(kind: SourceKind) {
        self.kind = kind
    }
}
