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
        switch request.op {
        case "start":
            guard let text = request.duration, let duration = ShareDuration(argument: text) else {
                return .failure(.badDuration, "duration must be 15m, 1h or 8h")
            }
            let share = await broadcaster.start(duration)
            await store.persist(from: broadcaster)
            log("share \(share.id) started for \(duration.rawValue), until \(share.expiresAt)")
            await onChange()
            return .success(share: ShareSummary(share, now: clock.now, privacy: broadcaster.privacy))
        case "stop":
            let stopped = await broadcaster.stop()
            await store.persist(from: broadcaster)
            if let stopped { log("share \(stopped.id) stopped") }
            await onChange()
            return .success(share: stopped.map { ShareSummary($0, now: nil, privacy: broadcaster.privacy) })
        case "status":
            return .success(status: await status())
        default:
            return .failure(.unknownOperation, "op must be start, stop or status")
        }
    }

    package func status() async -> StatusReport {
        let share = await broadcaster.activeShare
        let now = clock.now
        return StatusReport(source: source.status, share: share.map { ShareSummary($0, now: now, privacy: broadcaster.privacy) },
                            sinks: await dispatcher.sinkStatusReport(), clock: now.iso8601,
                            ended: share == nil ? await broadcaster.lastEndedShare.map(EndedShareSummary.init) : nil)
    }
}
