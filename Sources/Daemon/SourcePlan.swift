import LiveLocation
import Replay

/// The configured source, made ready to run: the clock shares run on and the pump that feeds the
/// broadcaster. A new source kind is one more case in `make`.
struct SourcePlan: Sendable {
    var kind: String
    var clock: any ShareClock
    /// Feeds the broadcaster until the source ends (returns) or fails (throws).
    var pump: @Sendable (LiveLocationBroadcaster, SourceMonitor) async throws -> Void

    /// - Throws: the source's error when it cannot be opened (e.g. the replay file is unreadable).
    static func make(_ configuration: DaemonConfiguration) throws -> SourcePlan {
        switch configuration.source {
        case .replay:
            let source = try NMEAReplaySource(path: configuration.replayFile ?? "", speed: configuration.replaySpeed,
                                              loop: configuration.replayLoop)
            return SourcePlan(kind: "replay", clock: source.clock) { broadcaster, monitor in
                monitor.setState("connected")
                try await broadcaster.pump(from: MonitoredSource(source, monitor: monitor))
            }
        case .gpsd:
            // Hook for the gpsd source: GPSDSource(endpoint:device:log:) on SystemIO.WallClock(),
            // its connection states fed to `monitor.setState`.
            throw SourceUnavailable(kind: "gpsd")
        }
    }
}

/// A source kind this build does not include.
struct SourceUnavailable: Error, CustomStringConvertible {
    var kind: String
    var description: String { "source '\(kind)' is not available in this build" }
}
