import Delivery
import Journal
import LiveLocation
import SystemIO

/// How a run of a share's parts goes and stops. livelocd and `liveloc share` differ here only, and
/// each difference says why (`daemon`, `oneShare`).
package struct ShareRun: Sendable {
    /// Whether stopping the run ends the active share (`broadcaster.stop()`: its final update and
    /// `ended` go everywhere), and whether the dispatcher's end (the share's `ended`, after which
    /// the caller's `onEvents` finishes the broadcaster) ends the run.
    package var isOneShare: Bool
    /// How long each destination may take, when the run stops, to deliver what is queued (nil: not
    /// waited for; the runner is cancelled at once).
    package var drainTimeout: Duration?
    /// Where the dispatcher and the source pump run; nil: where the group runs its services.
    package var executor: (any TaskExecutor)?

    /// livelocd: a stop keeps the share (it stays in the journal and the next start resumes it, with
    /// the same id and expiry); the runners are cancelled at once (what is queued stays in the
    /// journal for the next start, and a slow destination does not spend the service manager's stop
    /// timeout); the dispatcher and the source pump run on `executor`, the journal's thread, so that
    /// a report from gpsd wakes one thread, which reads it, takes it through the share's rules,
    /// commits it and hands it on.
    package static func daemon(executor: any TaskExecutor) -> ShareRun {
        ShareRun(isOneShare: false, drainTimeout: nil, executor: executor)
    }

    /// `liveloc share`: the share is the run, so a signal ends it (its final update and `ended` reach
    /// every destination) and its `ended` ends the run; the destinations then get `drainTimeout` to
    /// deliver what is queued, since the process exits and nothing delivers before the next run;
    /// no executor of its own: the whole group already runs on the share's thread
    /// (`runServiceGroup`'s `executor`).
    package static func oneShare(drainTimeout: Duration) -> ShareRun {
        ShareRun(isOneShare: true, drainTimeout: drainTimeout, executor: nil)
    }
}

/// A share's services, ready for `runServiceGroup`, and the share the journal resumed.
package struct ShareServices: Sendable {
    /// In their order of start: the destinations' runners, the dispatcher, the caller's others, the
    /// source. The group stops them in reverse: the source first (no more fixes), the others, the
    /// dispatcher (the broadcaster's last batches committed and handed on), the runners last (they
    /// take what the dispatcher handed them).
    package var services: [Service]
    /// The unfinished share found in the journal and resumed (before any service started): with
    /// the same id and expiry in livelocd; in `liveloc share`, a share an earlier run that was
    /// killed left open, which ends (superseded or expired) before the new one starts.
    package var resumed: ShareSnapshot?
}

extension SharePipeline {
    /// The one place a share's services are assembled, for livelocd and `liveloc share` alike:
    /// resumes the journal's active share, then returns the runners, the dispatcher, `others` and
    /// `source` in their one order (`ShareServices.services`).
    /// - Parameter source: feeds the broadcaster (`pump`); it handles its own failure and end (the
    ///   daemon shows them in its status, a share ends).
    /// - Parameter others: the caller's services, stopped after the source and before the
    ///   dispatcher (the daemon's control server, command channels and watchdog; a share's SIGUSR1).
    package func services(_ run: ShareRun, others: [Service] = [],
                          source: @escaping @Sendable () async throws -> Void) async -> ShareServices {
        let (broadcaster, dispatcher, log, executor) = (self.broadcaster, self.dispatcher, self.log, run.executor)
        var resumed: ShareSnapshot?
        if let snapshot = await journal?.activeShare {
            await broadcaster.resume(snapshot)
            resumed = snapshot
        }
        var services = runners.map { runner in
            guard let timeout = run.drainTimeout else {
                return Service("destination \(runner.destination.name)") { try await runner.run() }
            }
            return Service("destination \(runner.destination.name)", cancelsAfterShutdown: true, shutdown: {
                guard await runner.drained(within: timeout) else {
                    let pending = await runner.status().pending
                    log.warning("\(runner.destination.name): \(pending) event(s) not delivered yet; they stay in the journal "
                        + "for the next run to \(runner.destination.identity)")
                    return
                }
            }) { try await runner.run() }
        }
        let stopEndsShare = run.isOneShare
        services.append(Service("dispatcher", ending: run.isOneShare ? .shutsDownGroup : .isIgnored, shutdown: {
            dispatcher.shuttingDown()
            if stopEndsShare { await broadcaster.stop() }
            await broadcaster.finish()
        }) {
            await withTaskExecutorPreference(executor) { await dispatcher.run(broadcaster.batches) }
        })
        services += others
        services.append(Service("source") {
            try await withTaskExecutorPreference(executor) { try await source() }
        })
        return ShareServices(services: services, resumed: resumed)
    }
}
