import LiveLocation
import SystemIO

/// What a `GPSDSource` is doing, for status reports.
package enum GPSDConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// Not started yet, or (re)connecting to gpsd.
    case connecting
    /// Connected and watching; no report from a receiver yet.
    case connected
    /// gpsd reports, but the receiver has no position (mode 0 or 1), or no receiver is attached.
    case noFix
    /// The latest report had a position.
    case fix(Fix.Mode)
    /// The connection failed or was lost; the next attempt is in `retryIn`.
    case disconnected(reason: String, retryIn: Duration)

    package var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .noFix: "no fix"
        case .fix(let mode): mode == .threeDimensional ? "3D fix" : "2D fix"
        case .disconnected(let reason, let retryIn): "disconnected (\(reason)); retrying in \(retryIn.shortText)"
        }
    }
}
