import Control
import LiveLocation
import Synchronization

/// Takes every event from the broadcaster, persists the share's new state, then hands the event to
/// each sink in turn. Runs until the broadcaster's events finish (after `finish()`), so that the
/// events emitted before a shutdown are still delivered.
package final class EventDispatcher: Sendable {
    package struct NamedSink: Sendable {
        package var name: String
        package var sink: any EventSink
        /// The sink's own view of its delivery (a webhook's queue), merged into `status`.
        package var probe: (@Sendable () async -> SinkStatus.Delivery)?

        package init(name: String, sink: any EventSink, probe: (@Sendable () async -> SinkStatus.Delivery)? = nil) {
            self.name = name
            self.sink = sink
            self.probe = probe
        }
    }

    private struct State {
        var sinks: [SinkStatus]
        /// When the event being handled was taken; nil while waiting for the next.
        var busySince: ContinuousClock.Instant?
    }

    let broadcaster: LiveLocationBroadcaster
    let store: ShareStore
    let sinks: [NamedSink]
    let log: DaemonLog
    /// Called after each final event (a share's end), e.g. to update systemd's status line.
    let onShareEnded: @Sendable (ShareEvent) async -> Void
    private let state: Mutex<State>

    package init(broadcaster: LiveLocationBroadcaster, store: ShareStore, sinks: [NamedSink], log: DaemonLog,
                 onShareEnded: @escaping @Sendable (ShareEvent) async -> Void = { _ in }) {
        self.broadcaster = broadcaster
        self.store = store
        self.sinks = sinks
        self.log = log
        self.onShareEnded = onShareEnded
        state = Mutex(State(sinks: sinks.map { SinkStatus(name: $0.name, delivered: 0, failed: 0, lastError: nil) }))
    }

    package func run() async {
        for await event in broadcaster.events {
            let now = ContinuousClock.now
            state.withLock { $0.busySince = now }
            // Sinks first, then the share's state: an event a sink took is never emitted again
            // under a new content, and an event no sink took is emitted again after a crash.
            for (index, named) in sinks.enumerated() {
                do {
                    try await named.sink.deliver(event)
                    state.withLock { $0.sinks[index].delivered += 1 }
                } catch {
                    state.withLock {
                        $0.sinks[index].failed += 1
                        $0.sinks[index].lastError = "\(error)"
                    }
                    log("sink \(named.name): \(error)")
                }
            }
            await store.persist(from: broadcaster, delivered: event)
            if case .ended(let id, let seq, let reason) = event {
                log("share \(id) ended (\(reason.rawValue), seq \(seq))")
                await onShareEnded(event)
            }
            state.withLock { $0.busySince = nil }
        }
    }

    package var sinkStatus: [SinkStatus] { state.withLock { $0.sinks } }

    /// `sinkStatus` with each sink's own delivery state (e.g. the webhook's pending events).
    package func sinkStatusReport() async -> [SinkStatus] {
        var report = sinkStatus
        for (index, named) in sinks.enumerated() where index < report.count {
            if let probe = named.probe { report[index].delivery = await probe() }
        }
        return report
    }

    /// How long the event in hand has been handled; zero while idle.
    package var busyFor: Duration {
        let now = ContinuousClock.now
        return state.withLock { state in state.busySince.map { now - $0 } ?? .zero }
    }
}
