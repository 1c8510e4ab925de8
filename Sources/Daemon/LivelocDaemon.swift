#if canImport(Glibc)
import Glibc
#endif
import Delivery
import Control
import Journal
import Pipeline
import LiveLocation
import SourceKinds
import SystemIO

/// `livelocd`: the source pump, the event dispatcher (the journal, standard output and the destinations), the control server
/// and the systemd watchdog, run as one task group. SIGTERM or SIGINT cancels the group; the active
/// share stays persisted and is resumed, with the same id and expiry, at the next start.
package enum LivelocDaemon {
    /// How long the dispatcher may spend on one event before the watchdog stops vouching for it.
    static let maximumEventHandlingTime: Duration = .seconds(30)

    /// Runs the daemon until SIGTERM/SIGINT (exit status 0) or a fatal failure (1, logged). Every
    /// part logs through `log` (the process's logger, as `main` bootstrapped it at `log.level`).
    ///
    /// Start-up opens the source, the journal and the control socket (any failure: 1); then one
    /// service group runs the destinations' runners, the dispatcher, the control server, the source
    /// pump and the watchdog. Shutdown goes the other way: the source stops, the broadcaster's last
    /// batches are committed, the runners stop, the journal is closed. A second signal exits at once
    /// from 2 s after the first on (every commit is a transaction: the journal is consistent
    /// whenever the process ends).
    /// - Parameter destinations: the destinations `configuration` configures, read once
    ///   (`DaemonConfiguration.configuredDestinations()`), built here.
    package static func run(_ configuration: DaemonConfiguration, destinations: [ConfiguredDestination],
                            log: Logger = .shared) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Taken over first: a SIGTERM during start-up (even right after "ready:") stops the daemon
        // gracefully instead of killing it.
        let caught = signalStream([SIGTERM, SIGINT])
        let notifier = SystemdNotifier.fromEnvironment()
        let parts: Parts
        do { parts = try await Parts.make(configuration, destinations: destinations, log: log) } catch {
            log.error("\(error)")
            return (error as? StartupError)?.exitStatus ?? 1
        }
        defer {
            parts.listener.close()
            if parts.ownsSocketFile { unlink(configuration.controlSocket) }
        }
        let (broadcaster, dispatcher, journal, monitor) = (parts.broadcaster, parts.dispatcher, parts.journal, parts.monitor)
        let statusLine: @Sendable () async -> Void = {
            let text = await statusText(broadcaster: broadcaster, monitor: monitor)
            try? notifier.notify("STATUS=\(text)")
        }
        let controller = ShareController(broadcaster: broadcaster, clock: parts.plan.clock, source: monitor,
                                         dispatcher: dispatcher, stdout: parts.stdout, log: log, onChange: statusLine,
                                         journal: journal)
        let server = ControlServer(listener: parts.listener, access: ControlAccess(group: parts.group, statusPublic: configuration.statusPublic),
                                   log: log, handle: controller.handle)

        var others = [Service("control server") { try await server.run() }]
        for destination in parts.runners.map(\.destination) {
            guard let channel = destination.commandChannel else { continue }
            let commands = RemoteCommands(channel: channel, handle: controller.handle, log: log)
            others.append(Service("\(destination.name) commands") { await commands.run() })
        }
        others.append(Service("watchdog") { await watchdog(notifier: notifier, broadcaster: broadcaster, dispatcher: dispatcher, log: log) })
        // The source pump (and with it the broadcaster) and the dispatcher run on the journal's
        // thread, and gpsd is read there (`ShareRun.daemon`).
        let shareServices = await parts.pipeline.services(.daemon(executor: journal.taskExecutor), others: others) {
            do {
                try await parts.plan.pump(broadcaster, monitor, journal.thread)
            } catch is CancellationError {
                return
            } catch {
                monitor.setState(.disconnected, error: "\(error)")
                throw error
            }
            guard !Task.isCancelled else { return }
            monitor.setState(.ended)
            log.notice("source ended")
        }
        if let snapshot = shareServices.resumed {
            // The time left on the share's own clock (the time since boot in the same boot; at most,
            // while its GPS times wait for a fix), not on a system clock that may be hours off.
            let left = await broadcaster.activeShareAndTime.map { ", \(($0.share.expiresAt - $0.now).glanceText) left" }
            log.notice("resuming share \(snapshot.id) (seq \(snapshot.seq), until \(snapshot.expiresAt)\(left ?? ""))")
        }
        let services = shareServices.services

        log.notice("ready: source \(parts.plan.kind), journal \(journal.path), control socket \(configuration.controlSocket)\(parts.ownsSocketFile ? "" : " (socket activation)")")
        do { try notifier.notify("READY=1\nSTATUS=\(await statusText(broadcaster: broadcaster, monitor: monitor))") } catch {
            log.warning("sd_notify: \(error)")
        }
        let outcome = await runServiceGroup(services, signals: [SIGTERM, SIGINT], caught: caught, log: log)
        try? notifier.notify("STOPPING=1")
        let kept = await journal.activeShare
        await journal.close()
        switch outcome {
        case .signalled, .finished:
            if let failure = await journal.lastingFailure {
                log.error("stopped; \(failure)")
            } else if let kept {
                log.notice("stopped; share \(kept.id) stays in the journal and is resumed at the next start")
            } else {
                log.notice("stopped; no share was active")
            }
            return 0
        case .forced(let number):
            log.warning("\(signalName(number)) again: stopped at once; the journal is consistent")
            return 0
        case .failed(let service, let error):
            log.error("\(service) failed: \(error)")
            return 1
        }
    }

    /// What start-up opens, in order; any failure stops start-up.
    private struct Parts {
        var plan: SourcePlan
        var journal: Journal
        var listener: UnixSocket
        var ownsSocketFile: Bool
        var group: gid_t?
        var monitor: SourceMonitor
        var pipeline: SharePipeline
        var broadcaster: LiveLocationBroadcaster { pipeline.broadcaster }
        var stdout: StdoutWriter? { pipeline.stdout }
        var runners: [DestinationRunner] { pipeline.runners }
        var dispatcher: ShareDispatcher { pipeline.dispatcher }

        static func make(_ configuration: DaemonConfiguration, destinations configured: [ConfiguredDestination],
                         log: Logger) async throws -> Parts {
            // The directories and the control socket first, as root when root runs livelocd by hand;
            // then root becomes the unit's user, before anything opens the journal.
            let socketActivated = getenv("LISTEN_FDS") != nil
            let user = WorkingDirectories.daemonUser(stateDirectory: configuration.stateDirectory,
                                                     startedBySystemd: getenv("INVOCATION_ID") != nil, log: log)
            try WorkingDirectories.prepare(stateDirectory: configuration.stateDirectory, controlSocket: configuration.controlSocket,
                                           socketActivated: socketActivated, owner: user)
            // What is said of the control group waits until start-up succeeded: a start-up that
            // fails says one line, its reason.
            let (configuredGroup, groupWarning) = controlGroupID(configuration.controlGroup)
            // The socket file gets the group only when this process may give it (a user running
            // livelocd by hand outside it may not); who may control the daemon is decided by the
            // configured group whatever owns the file (under the unit, livelocd's user is not in it).
            let (socketGroup, groupNotice) = socketActivated ? (configuredGroup, nil)
                : WorkingDirectories.usableControlGroup(configuredGroup, name: configuration.controlGroup)
            let listener: UnixSocket
            var ownsSocketFile = false
            do {
                if let activated = try UnixSocket.activated(path: configuration.controlSocket) {
                    listener = activated
                } else {
                    listener = try UnixSocket.listen(path: configuration.controlSocket, mode: configuration.statusPublic ? 0o666 : 0o660,
                                                     group: socketGroup, backlog: ControlServer.listenBacklog)
                    ownsSocketFile = true
                }
            } catch where error.errno == .addressInUse {
                throw StartupError("control socket \(configuration.controlSocket): another livelocd answers there; "
                                   + "stop it first, or give this one its own --control.socket")
            } catch {
                throw StartupError("control socket: \(error)")
            }
            // Whatever stops start-up from here leaves no socket file behind.
            func closeListener() {
                listener.close()
                if ownsSocketFile { unlink(configuration.controlSocket) }
            }
            do {
                if let user {
                    try user.become()
                    log.notice("running as user \(user.name), as livelocd.service does")
                }
            } catch {
                closeListener()
                throw StartupError("\(error)")
            }
            let plan: SourcePlan
            do { plan = try SourcePlan.make(configuration.source, log: log) } catch {
                closeListener()
                // The replay log is a file the configuration names: one that cannot be read is a bad
                // configuration (exit 2), as for `liveloc share --replay`.
                if configuration.source.kind == .replay {
                    throw StartupError("replay.file: \(error)", exitStatus: 2)
                }
                throw StartupError("cannot open the source: \(error)")
            }
            let battery = startBattery(configuration, log: log)
            let destinations: [any Destination]
            let monitor = SourceMonitor(kind: plan.kind.rawValue)
            let shareLinks = ShareLinks()
            let context = DestinationContext(log: log, reportsBattery: battery != nil, lastFixAge: { monitor.lastFixAge }, shareLinks: shareLinks)
            do {
                destinations = try configured.map { try $0.make(context) }
                shareLinks.attach(destinations)
            } catch {
                battery?.stop()
                closeListener()
                throw StartupError("\(error)")
            }
            var pipelinePlan = SharePipeline.Plan(clock: plan.clock, log: log)
            pipelinePlan.throttle = configuration.throttle
            pipelinePlan.privacy = configuration.privacy
            pipelinePlan.battery = battery
            pipelinePlan.destinations = destinations
            pipelinePlan.journal = .init(directory: configuration.stateDirectory, leftovers: configuration.leftovers,
                                         legacyOutbox: configuration.destinationSettings["webhook.outbox"],
                                         trackRetention: configuration.trackRetention, syncDelay: configuration.syncDelay)
            pipelinePlan.stdout = configuration.writesStdout ? .bounded(maxBytes: 256 << 10) : nil
            pipelinePlan.onEvents = { _, events in
                // Through the rate limit past about one a second (a flood of starts supersedes as many
                // shares), one kind per reason, so that a flood of one hides no other.
                for case .ended(let id, let seq, let reason) in events {
                    log.limited(.notice, key: "share ended \(reason.rawValue)", window: Logger.humanPaceWindow,
                                "share \(id) ended (\(reason.rawValue), seq \(seq))") { count, window in
                        "\(count.thousandsSeparated) more shares ended (\(reason.rawValue)) in the last \(window.shortText)"
                    }
                }
            }
            let pipeline: SharePipeline
            do { pipeline = try await SharePipeline(pipelinePlan) } catch {
                closeListener()
                throw error
            }
            let journal = pipeline.journal!
            if let groupWarning { log.warning(groupWarning) }
            if let groupNotice { log.notice(groupNotice) }
            return Parts(plan: plan, journal: journal, listener: listener, ownsSocketFile: ownsSocketFile, group: configuredGroup,
                         monitor: monitor, pipeline: pipeline)
        }
    }

    /// The battery per `battery.path`, its thread started; nil without one. A battery that cannot
    /// be read (yet) is kept: its fields are left out until it can be.
    static func startBattery(_ configuration: DaemonConfiguration, log: Logger) -> PowerSupplyBattery? {
        guard let battery = configuration.battery(log: log) else { return nil }
        do { try battery.start() } catch {
            log.warning("battery: \(error); its fields are left out")
            return nil
        }
        log.info("battery: \(battery.directory), read every \(battery.interval.shortText)")
        return battery
    }

    /// Sends `WATCHDOG=1` every half interval, but only while the broadcaster answers and the
    /// dispatcher is not stuck on an event: a hung main loop then gets the daemon restarted.
    static func watchdog(notifier: SystemdNotifier, broadcaster: LiveLocationBroadcaster,
                         dispatcher: ShareDispatcher, log: Logger) async {
        guard notifier.isActive, let interval = notifier.watchdogInterval else { return }
        var complained = false
        while !Task.isCancelled {
            do { try await DeadlineTimer.sleep(for: interval / 2) } catch { return }
            _ = await broadcaster.activeShare
            guard dispatcher.busyFor < maximumEventHandlingTime else {
                if !complained { log.warning("watchdog: an event has been in delivery for \(dispatcher.busyFor); not vouching") }
                complained = true
                continue
            }
            complained = false
            do { try notifier.notify("WATCHDOG=1") } catch {
                log.limited(.warning, key: "sd_notify watchdog", "sd_notify: \(error)") { count, window in
                    "sd_notify: \(count.thousandsSeparated) more WATCHDOG=1 not sent in the last \(window.shortText)"
                }
            }
        }
    }

    static func statusText(broadcaster: LiveLocationBroadcaster, monitor: SourceMonitor) async -> String {
        let source = monitor.status
        if let share = await broadcaster.activeShare {
            return "Sharing \(share.id) until \(share.expiresAt), \(share.updatesSent) updates; source \(source.state)"
        }
        return "Idle; source \(source.kind) \(source.state)"
    }

    /// The control group's id, by name or number (/etc/group first: `groupID(named:)`); nil (only
    /// root and the daemon's user allowed) when there is no such group or it cannot be looked up,
    /// with the warning that says so.
    static func controlGroupID(_ name: String) -> (gid_t?, warning: String?) {
        do {
            if let id = try groupID(named: name) { return (id, nil) }
            return (nil, "control group '\(name)' does not exist: only root and the daemon's own user may control it")
        } catch {
            return (nil, "control group '\(name)': \(error); only root and the daemon's own user may control it")
        }
    }
}

/// Why start-up stopped, in one line, and the exit status: 1 for a runtime failure, 2 when the
/// configuration names something that cannot be used.
struct StartupError: Error, CustomStringConvertible {
    var description: String
    var exitStatus: Int32
    init(_ description: String, exitStatus: Int32 = 1) {
        self.description = description
        self.exitStatus = exitStatus
    }
}
