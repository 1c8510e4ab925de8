#if canImport(Glibc)
import Glibc
#endif
import Delivery
import Webhook
import LiveLocation
import SystemIO

/// `livelocd`: the source pump, the event dispatcher (sinks and persistence), the control server
/// and the systemd watchdog, run as one task group. SIGTERM or SIGINT cancels the group; the active
/// share stays persisted and is resumed, with the same id and expiry, at the next start.
public enum LivelocDaemon {
    /// How long the dispatcher may spend on one event before the watchdog stops vouching for it.
    static let maximumEventHandlingTime: Duration = .seconds(30)

    /// Runs the daemon until SIGTERM/SIGINT (exit status 0) or a fatal failure (1, logged).
    public static func run(_ configuration: DaemonConfiguration) async -> Int32 {
        let log = DaemonLog()
        signal(SIGPIPE, SIG_IGN)
        let signals = signalStream([SIGTERM, SIGINT])
        let notifier = SystemdNotifier.fromEnvironment()

        let plan: SourcePlan
        do { plan = try SourcePlan.make(configuration, log: log) } catch {
            log("cannot open the source: \(error)")
            return 1
        }
        let store = ShareStore(directory: configuration.stateDirectory, log: log)
        do { try store.prepare() } catch {
            log("state directory: \(error)")
            return 1
        }
        let group = controlGroupID(configuration.controlGroup, log: log)
        let listener: UnixSocket
        let ownsSocketFile: Bool
        do {
            if let activated = try UnixSocket.activated(path: configuration.controlSocket) {
                listener = activated
                ownsSocketFile = false
            } else {
                listener = try UnixSocket.listen(path: configuration.controlSocket,
                                                 mode: configuration.statusPublic ? 0o666 : 0o660, group: group)
                ownsSocketFile = true
            }
        } catch {
            log("control socket: \(error)")
            return 1
        }
        defer {
            listener.close()
            if ownsSocketFile { unlink(configuration.controlSocket) }
        }

        let monitor = SourceMonitor(kind: plan.kind)
        let broadcaster = LiveLocationBroadcaster(clock: plan.clock, throttle: configuration.throttle,
                                                  privacy: configuration.privacy)
        var sinks: [EventDispatcher.NamedSink] = []
        if configuration.stdoutSink { sinks.append(.init(name: "stdout", sink: StdoutSink())) }
        let webhook: WebhookSink?
        do {
            webhook = try configuration.webhookConfiguration().map { try WebhookSink(configuration: $0, log: log.callAsFunction) }
        } catch {
            log("webhook: \(error)")
            return 1
        }
        if let webhook {
            sinks.append(.init(name: "webhook", sink: webhook) {
                let status = await webhook.status
                return .init(state: status.state, pending: status.pending, acknowledged: status.delivered,
                             dropped: status.superseded + status.droppedOverBound + status.rejected,
                             lastError: status.lastError)
            })
        }
        let statusLine: @Sendable () async -> Void = {
            let text = await statusText(broadcaster: broadcaster, monitor: monitor)
            try? notifier.notify("STATUS=\(text)")
        }
        let dispatcher = EventDispatcher(broadcaster: broadcaster, store: store, sinks: sinks, log: log,
                                         onShareEnded: { _ in await statusLine() })
        let controller = ShareController(broadcaster: broadcaster, clock: plan.clock, store: store, source: monitor,
                                         dispatcher: dispatcher, log: log, onChange: statusLine)
        let server = ControlServer(listener: listener, group: group, statusPublic: configuration.statusPublic,
                                   log: log, handle: controller.handle)

        if let snapshot = await store.load() {
            log("resuming share \(snapshot.id) (seq \(snapshot.seq), until \(snapshot.expiresAt))")
            await broadcaster.resume(snapshot)
            await store.persist(from: broadcaster)
        }

        async let dispatched: Void = dispatcher.run()
        log("ready: source \(plan.kind), control socket \(configuration.controlSocket)\(ownsSocketFile ? "" : " (socket activation)")")
        do { try notifier.notify("READY=1\nSTATUS=\(await statusText(broadcaster: broadcaster, monitor: monitor))") } catch {
            log("sd_notify: \(error)")
        }

        let failure: String? = await withTaskGroup(of: ServiceOutcome.self) { services in
            services.addTask {
                do {
                    try await plan.pump(broadcaster, monitor)
                    monitor.setState("ended")
                    log("source ended")
                    return .finished
                } catch is CancellationError {
                    return .finished
                } catch {
                    monitor.setState("disconnected", error: "\(error)")
                    return .failed("source failed: \(error)")
                }
            }
            services.addTask {
                do { try await server.run() } catch is CancellationError { return .finished } catch {
                    return .failed("control server: \(error)")
                }
                return .finished
            }
            if let webhook {
                services.addTask {
                    do { try await webhook.run() } catch is CancellationError { return .finished } catch {
                        return .failed("webhook outbox: \(error)")
                    }
                    return .finished
                }
            }
            services.addTask {
                await watchdog(notifier: notifier, broadcaster: broadcaster, dispatcher: dispatcher, log: log)
                return .finished
            }
            services.addTask {
                for await number in signals {
                    log("\(number == SIGTERM ? "SIGTERM" : "SIGINT"): shutting down, the active share stays persisted")
                    return .signalled
                }
                return .finished
            }
            var failure: String?
            while let outcome = await services.next() {
                switch outcome {
                case .finished: continue
                case .signalled: break
                case .failed(let message): failure = message
                }
                break
            }
            services.cancelAll()
            return failure
        }

        try? notifier.notify("STOPPING=1")
        await broadcaster.finish()
        await dispatched
        await store.persist(from: broadcaster)
        if let failure {
            log(failure)
            return 1
        }
        log("stopped")
        return 0
    }

    /// Sends `WATCHDOG=1` every half interval, but only while the broadcaster answers and the
    /// dispatcher is not stuck on an event: a hung main loop then gets the daemon restarted.
    static func watchdog(notifier: SystemdNotifier, broadcaster: LiveLocationBroadcaster,
                         dispatcher: EventDispatcher, log: DaemonLog) async {
        guard notifier.isActive, let interval = notifier.watchdogInterval else { return }
        var complained = false
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval / 2) } catch { return }
            _ = await broadcaster.activeShare
            guard dispatcher.busyFor < maximumEventHandlingTime else {
                if !complained { log("watchdog: an event has been in delivery for \(dispatcher.busyFor); not vouching") }
                complained = true
                continue
            }
            complained = false
            do { try notifier.notify("WATCHDOG=1") } catch { log("sd_notify: \(error)") }
        }
    }

    static func statusText(broadcaster: LiveLocationBroadcaster, monitor: SourceMonitor) async -> String {
        let source = monitor.status
        if let share = await broadcaster.activeShare {
            return "Sharing \(share.id) until \(share.expiresAt), \(share.updatesSent) updates; source \(source.state)"
        }
        return "Idle; source \(source.kind) \(source.state)"
    }

    /// The control group's id, by name or number; nil (only root and the daemon's user allowed)
    /// when there is no such group.
    static func controlGroupID(_ name: String, log: DaemonLog) -> gid_t? {
        if let number = gid_t(name) { return number }
        guard let entry = getgrnam(name) else {
            log("control group '\(name)' does not exist: only root and the daemon's own user may control it")
            return nil
        }
        return entry.pointee.gr_gid
    }
}

private enum ServiceOutcome: Sendable {
    case finished
    case signalled
    case failed(String)
}
