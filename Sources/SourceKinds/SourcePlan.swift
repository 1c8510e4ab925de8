import Control
import GPSD
import Pipeline
import LiveLocation
import Replay
import Serial
import SystemIO

/// A source, opened and ready to run, for livelocd and `liveloc share` alike: the clock shares run
/// on and the pump that feeds the broadcaster. A new source kind is one more case in `make`.
package struct SourcePlan: Sendable {
    package var kind: SourceKind
    package var clock: any ShareClock
    /// Feeds the broadcaster until the source ends (returns) or fails (throws). With a monitor
    /// (livelocd's status), its states and fixes are told to it; with a thread, a live source
    /// reads on it, the one the pump runs on (livelocd's journal thread).
    package var pump: @Sendable (LiveLocationBroadcaster, (any SourceObserver)?, ThreadExecutor?) async throws -> Void

    /// - Throws: the source's error when it cannot be opened (e.g. the replay file is unreadable).
    package static func make(_ settings: SourceSettings, log: Logger) throws -> SourcePlan {
        switch settings.kind {
        case .replay:
            let source = try NMEAReplaySource(path: settings.replayFile ?? "", speed: settings.replaySpeed,
                                              loop: settings.replayLoop)
            return SourcePlan(kind: .replay, clock: source.clock) { broadcaster, monitor, _ in
                guard let monitor else { return try await broadcaster.pump(from: source) }
                monitor.setState(.connected)
                try await broadcaster.pump(from: ObservedSource(source, observer: monitor))
            }
        case .gpsd:
            let source = GPSDSource(endpoint: settings.gpsd, device: settings.gpsdDevice, log: log)
            return SourcePlan(kind: .gpsd, clock: DisciplinedClock.system(log: log)) { broadcaster, monitor, thread in
                guard let monitor else { return try await broadcaster.pump(from: source) }
                guard let thread else { preconditionFailure("a monitored gpsd source reads on the pump's thread") }
                try await pump(source.reading(on: thread), states: source.states, into: broadcaster, monitor: monitor) { state, monitor in
                    switch state {
                    case .connecting: monitor.setState(.connecting)
                    case .connected, .noFix, .fix: monitor.setState(.connected)
                    case .disconnected(let reason, _): monitor.setState(.disconnected, error: reason)
                    }
                }
            }
        case .serial:
            let source = SerialSource(path: settings.serialDevice ?? "", baud: settings.serialBaud, log: log)
            return SourcePlan(kind: .serial, clock: DisciplinedClock.system(log: log)) { broadcaster, monitor, _ in
                guard let monitor else { return try await broadcaster.pump(from: source) }
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
        monitor: any SourceObserver, _ apply: @escaping @Sendable (State, any SourceObserver) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for await state in states { apply(state, monitor) } }
            group.addTask { try await broadcaster.pump(from: ObservedSource(source, observer: monitor)) }
            // The pump ends only when cancelled; then so does the state watch.
            try await group.next()
            group.cancelAll()
        }
    }
}
