import Control
import LiveLocation

/// What the control protocol's operations do to the daemon: start and stop shares (persisting the
/// result before answering) and report the status.
package struct ShareController: Sendable {
    let broadcaster: LiveLocationBroadcaster
    let clock: any ShareClock
    let store: ShareStore
    let source: SourceMonitor
    let dispatcher: EventDispatcher
    let log: DaemonLog
    /// Called after a start or stop, e.g. to update systemd's status line.
    let onChange: @Sendable () async -> Void

    package func handle(_ request: ControlRequest) async -> ControlResponse {
        switch request {
        case .start(let duration):
            let share = await broadcaster.start(duration)
            await store.persist(from: broadcaster)
            log("share \(share.id) started for \(duration.rawValue), until \(share.expiresAt)")
            await onChange()
            return .success(share: ShareSummary(share, now: clock.now))
        case .stop:
            let stopped = await broadcaster.stop()
            await store.persist(from: broadcaster)
            if let stopped { log("share \(stopped.id) stopped") }
            await onChange()
            return .success(share: stopped.map { ShareSummary($0, now: nil) })
        case .status:
            return .success(status: await status())
        }
    }

    package func status() async -> StatusReport {
        let share = await broadcaster.activeShare
        let now = clock.now
        return StatusReport(source: source.status, share: share.map { ShareSummary($0, now: now) },
                            sinks: await dispatcher.sinkStatusReport(), clock: now.iso8601)
    }
}
