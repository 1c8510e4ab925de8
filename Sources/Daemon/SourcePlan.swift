import GPSD
import Pipeline
import LiveLocation
import Replay
import Serial
import SystemIO

/// The configured source, made ready to run: the clock shares run on and the pump that feeds the
/// broadcaster. A new source kind is one more case in `make`.
struct SourcePlan: Sendable {
    var kind: String
    var clock: any ShareClock
    /// Feeds the broadcaster until the source ends (returns) or fails (throws); a live source reads
    /// on the given thread, the one the pump runs on (the journal's).
    var pump: @Sendable (LiveLocationBroadcaster, SourceMonitor, ThreadExecutor) async throws -> Void

    /// - Throws: the source's error when it cannot be opened (e.g. the replay file is unreadable).
    static func make(_ configuration: DaemonConfiguration, log: Logger) throws -> SourcePlan {
        switch configuration.source {
        case .replay:
            let source = try NMEAReplaySource(path: configuration.replayFile ?? "", speed: configuration.replaySpeed,
                                              loop: configuration.replayLoop)
            return SourcePlan(kind: "replay", clock: source.clock) { broadcaster, monitor, _ in
                monitor.setState(.connected)
                try await broadcaster.pump(from: MonitoredSource(source, monitor: monitor))
            }
        case .gpsd:
            let source = GPSDSource(endpoint: GPSDEndpoint(host: configuration.gpsdHost, port: configuration.gpsdPort),
                                    device: configuration.gpsdDevice, log: log)
            return SourcePlan(kind: "gpsd", clock: DisciplinedClock.system(log: log)) { broadcaster, monitor, thread in
                try await pump(source.reading(on: thread), states: source.states, into: broadcaster, monitor: monitor) { state, monitor in
                    switch state {
                    case .connecting: monitor.setState(.connecting)
                    case .connected, .noFix, .fix: monitor.setState(.connected)
                    case .disconnected(let reason, _): monitor.setState(.disconnected, error: reason)
                    }
                }
            }
        case .serial:
            let source = SerialSource(path: configuration.serialDevice ?? "", baud: configuration.serialBaud,
                                      log: log)
            return SourcePlan(kind: "serial", clock: DisciplinedClock.system(log: log)) { broadcaster, monitor, _ in
                try await pump(source, states: source.states, into: broadcaster, monitor: monitor) { state, monitor in
                    switch state {
                    case .opening, .detectingBaud: monitor.setState(.connecting, detail: state.description)
                    case .open: monitor.setState(.connected, detail: state.description)
                    case .waitingForDevice(let reason):
                        monitor.setState(.disconnected, error: reason, detail: "waiting for device")
                    }
                }
            }
        }
    }

    /// Feeds a live source's fixes to the broadcaster while its states go to the monitor, until
    /// cancelled (a live source never ends by itself).
    private static func pump<Source: LocationSource, State: Sendable>(
        _ source: Source, states: AsyncStream<State>, into broadcaster: LiveLocationBroadcaster,
        monitor: SourceMonitor, _ apply: @escaping @Sendable (State, SourceMonitor) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for await state in states { apply(state, monitor) } }
            group.addTask { try await broadcaster.pump(from: MonitoredSource(source, monitor: monitor)) }
            // The pump ends only when cancelled; then so does the state watch.
            try await group.next()
            group.cancelAll()
        }
    }
}
