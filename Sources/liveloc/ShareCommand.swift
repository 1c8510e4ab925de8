import ArgumentParsing
import Delivery
import DestinationKinds
import Journal
import Pipeline
import Locking
import GPSD
import LiveLocation
import Serial
import SourceKinds
import SystemIO
import Settings
#if canImport(Glibc)
import Glibc
#endif

/// `liveloc share`: one share in the foreground, its events as JSON lines on stdout.
enum ShareCommand: Command {
    static let name = "share"
    static let summary = "run one share in the foreground, events as JSON lines on stdout"
    static let help = """
        usage: liveloc share --duration 15m|1h|8h [--id ID] (--replay FILE [--speed X] [--loop] | --gpsd [HOST[:PORT]]
                                                   | --serial PATH [--baud auto|RATE])
                             [--min-interval DURATION] [--min-distance METERS] [--min-angle DEGREES]
                             [--precision METRES] [--zone LAT,LON,RADIUS ...]
        \(ShareDestinationOptions.synopsis)
                             [--log-level debug|info|notice|warning|error]

        Runs one live-location share and prints its events on stdout, one JSON object per line
        (the format is in README.md). Exits 0 after the share's `ended` event. SIGINT or SIGTERM
        stops the share: its final update and `ended` are printed, then liveloc exits. A second
        signal exits at once (130), from 2 s after the first on. SIGUSR1 extends the share by
        15 minutes (never beyond 8 h from now), as `liveloc extend 15m` does livelocd's:
        kill -USR1 PID; one line on stderr says its new end.

        options:
          --duration D        15m, 1h or 8h (required)
          --id ID             the share's id, the caller's own (1 to 64 characters of A-Za-z0-9._:-;
                              default: a new random one); every destination uses it. With a
                              destination, an id the state directory's journal has seen is refused
          --replay FILE       replay an NMEA 0183 log; the share runs on the log's own timeline
          --speed X           replay X times faster than real time; 0 = as fast as possible (default 1)
          --loop              start the log again at its end instead of ending the share
          --gpsd [HOST[:PORT]] fixes from gpsd (default localhost:2947; IPv6 as [::1]:2947); the share
                              runs on UTC right without a real-time clock, and survives gpsd restarts (it reconnects)
          --gpsd-device PATH  only this device of gpsd's
        \(SerialOptions.help)
          --min-interval D    drop fixes sooner than D after the last update: 5s, 500ms, 1m (default off)
          --min-distance M    drop fixes less than M metres from the last update (default off)
          --min-angle D       still send a fix those two would drop when the course turned by more
                              than D degrees since the last update (default off)
        \(PrivacyOptions.help)
        \(ShareDestinationOptions.help)
          --log-level L       the least severe lines written to stderr: debug, info (default), notice,
                              warning or error
        livelocd's spelling of an option of the same meaning is taken too: --replay.file,
        --state_directory, --webhook.url, --log.level…

        exit status: 0 after the share ended, 1 on a runtime failure, 2 on bad usage or input.
        """

    static let options: [String: Arguments.Kind] = [
        "--duration": .value, "--id": .value, "--replay": .value, "--speed": .value, "--loop": .flag,
        "--gpsd": .optionalValue, "--gpsd-device": .value,
        "--min-interval": .value, "--min-distance": .value, "--min-angle": .value, "--log-level": .value,
    ].merging(ShareDestinationOptions.options) { first, _ in first }.merging(PrivacyOptions.options) { first, _ in first }
        .merging(SerialOptions.options) { first, _ in first }

    /// livelocd's spelling of an option (`--replay.file`, `--state_directory`, `--webhook.url`),
    /// taken for the option of the same meaning.
    static let keySpellings = (DaemonSettings.tables + DestinationKinds.all.map(\.table)).optionsByKeyFlag

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: options, aliases: keySpellings)
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        var log = Logger.shared
        log.level = try arguments.value("--log-level", as: LogLevel.expected, LogLevel.init(name:)) ?? .info
        guard let duration = try arguments.value("--duration", as: "15m, 1h or 8h", ShareDuration.init(argument:)) else {
            throw UsageError("missing --duration 15m|1h|8h")
        }
        let throttle = try throttleOptions(arguments)
        let privacy = try PrivacyOptions.filter(arguments)
        let id = try arguments.value("--id", as: ShareID.callerIDRule) { ShareID.isValidCallerID($0) ? ShareID(rawValue: $0) : nil }
        let destinations = try ShareDestinationOptions(arguments)
        let source: SourcePlan
        do { source = try SourcePlan.make(try sourceSettings(arguments), log: log) } catch let error as UsageError {
            throw error
        } catch {
            // Only a replay opens its file here: one that cannot be read is bad input.
            throw CommandFailure("\(error)", exitStatus: 2)
        }
        return try await runShare(duration: duration, source: source, throttle: throttle, privacy: privacy,
                                  destinations: destinations, id: id, log: log)
    }

    /// The source the options name, of the one table of kinds (`SourceKind`), as livelocd's
    /// `source =` does: `--serial`, `--replay` or `--gpsd`.
    /// - Throws: `UsageError` for no source, two, or an option of another source's.
    static func sourceSettings(_ arguments: Arguments) throws(UsageError) -> SourceSettings {
        if let device = try SerialOptions.device(arguments) {
            var settings = SourceSettings(kind: .serial)
            (settings.serialDevice, settings.serialBaud) = (device.path, device.baud)
            return settings
        }
        if let path = arguments.value("--replay") {
            guard !arguments.has("--gpsd") else { throw UsageError("--replay and --gpsd exclude each other") }
            var settings = SourceSettings(kind: .replay)
            settings.replayFile = path
            settings.replaySpeed = try arguments.value("--speed", as: "a number >= 0", nonNegativeNumber) ?? 1
            settings.replayLoop = arguments.has("--loop")
            return settings
        }
        if arguments.has("--gpsd") {
            for replayOnly in ["--speed", "--loop"] where arguments.has(replayOnly) {
                throw UsageError("\(replayOnly) needs --replay")
            }
            var settings = SourceSettings(kind: .gpsd)
            settings.gpsd = try arguments.value("--gpsd", as: "HOST, HOST:PORT or [IPV6]:PORT", GPSDEndpoint.init(parsing:))
                ?? .default
            settings.gpsdDevice = arguments.value("--gpsd-device")
            return settings
        }
        throw UsageError("missing source: --replay FILE, --gpsd [HOST[:PORT]] or --serial PATH")
    }

    static func throttleOptions(_ arguments: Arguments) throws(UsageError) -> Throttle {
        let interval = try arguments.value("--min-interval", as: "\(Duration.textSyntax), or off", offOrDuration)
        let distance = try arguments.value("--min-distance", as: "metres >= 0", nonNegativeNumber)
        let angle = try arguments.value("--min-angle", as: "degrees >= 0 and < 180") { nonNegativeNumber($0).flatMap { $0 < 180 ? $0 : nil } }
        return Throttle(minInterval: interval ?? nil, minDistanceMeters: distance, minAngleDegrees: angle)
    }

    /// `$XDG_STATE_HOME/liveloc` (or `~/.local/state/liveloc`): where `liveloc share` keeps its journal.
    static func defaultStateDirectory() throws -> String {
        let variable = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let stateHome = variable("XDG_STATE_HOME") ?? (variable("HOME") ?? "/tmp") + "/.local/state"
        let directory = stateHome + "/liveloc"
        do { try makeDirectories(directory, mode: 0o700) } catch {
            throw CommandFailure("cannot create the state directory \(directory): \(error)")
        }
        return directory
    }

    /// Runs one share from `source` to its end on one thread of its own (see `ThreadExecutor`: an
    /// event reaches stdout without a cross-CPU wake-up). The journal's commits and the
    /// destinations' I/O run on threads of their own.
    static func runShare(
        duration: ShareDuration, source: SourcePlan, throttle: Throttle, privacy: PrivacyFilter,
        destinations options: ShareDestinationOptions, id: ShareID?, log: Logger
    ) async throws -> Int32 {
        let pipeline: ThreadExecutor
        do {
            pipeline = try ThreadExecutor(name: "liveloc-share")
        } catch {
            throw CommandFailure("\(error)")
        }
        defer { pipeline.shutdown() }
        return try await withTaskExecutorPreference(pipeline) {
            try await runShareServices(duration: duration, source: source, throttle: throttle, privacy: privacy,
                                       destinations: options, id: id, pipeline: pipeline, log: log)
        }
    }

    /// The share as a service group (`SharePipeline.services`, `.oneShare`): the destinations'
    /// runners, the dispatcher (its share's `ended` ends the group), SIGUSR1's extensions and the
    /// source pump. SIGINT/SIGTERM stop the share (its final update and
    /// `ended` go everywhere), then the destinations get up to `--drain-timeout` to take what is
    /// queued; a second signal exits at once (what is left stays in the journal for the next run),
    /// from 2 s after the first on (`runServiceGroup`'s `forceGrace`).
    private static func runShareServices(
        duration: ShareDuration, source: SourcePlan, throttle: Throttle, privacy: PrivacyFilter,
        destinations options: ShareDestinationOptions, id: ShareID?, pipeline: ThreadExecutor, log: Logger
    ) async throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let destinations = try options.destinations(log: log)
        let shareID = id ?? .random()
        var plan = SharePipeline.Plan(clock: source.clock, log: log)
        plan.throttle = throttle
        plan.privacy = privacy
        plan.destinations = destinations
        if !destinations.isEmpty {
            plan.journal = .init(directory: try options.stateDirectory ?? defaultStateDirectory(), leftovers: options.leftovers,
                                 legacyOutbox: options.legacyOutbox)
        }
        plan.stdout = .direct
        plan.stdoutClosedStopsShare = true
        plan.onEvents = { broadcaster, events in
            if events.contains(where: { if case .ended(shareID, _, _) = $0 { true } else { false } }) {
                await broadcaster.finish()
            }
        }
        let parts: SharePipeline
        do { parts = try await SharePipeline(plan) } catch { throw CommandFailure("\(error)") }
        let (broadcaster, journal) = (parts.broadcaster, parts.journal)
        if let id, let journal {
            // An event id (evt_<id>_<seq>) names one content forever: an id the journal has seen starts nothing.
            let unused: Bool
            do { unused = try await journal.takeShareID(id) } catch { throw CommandFailure("\(error)") }
            guard unused else {
                await journal.close()
                throw CommandFailure(Journal.refusal(reusing: id))
            }
        }
        // Taken over before the share starts: a SIGUSR1 never kills the share.
        let extensions = signalStream([SIGUSR1])
        let sourceFailure = Locked<String?>(nil)
        // The services resume what an earlier run that was killed left open first: it ends
        // (superseded or expired) when this share starts.
        let services = await parts.services(.oneShare(drainTimeout: options.drainTimeout), others: [
            Service("extensions") {
                for await _ in extensions { await extendOnSignal(broadcaster, log: log) }
            },
        ]) {
            do {
                try await source.pump(broadcaster, nil, nil)
            } catch is CancellationError {
            } catch {
                sourceFailure.withLock { $0 = "source failed: \(error)" }
                await broadcaster.sourceEnded()
            }
        }.services
        await broadcaster.start(duration, id: shareID)
        let outcome = await runServiceGroup(services, signals: [SIGINT, SIGTERM], executor: pipeline, log: .silent)
        if case .forced = outcome {
            // At once, as asked: the services still running would find the pipeline's thread shut
            // down (a trap). Every commit is a transaction: the journal is consistent as it is.
            _exit(130)
        }
        await journal?.close()
        if case .failed(let service, let error) = outcome { throw CommandFailure("\(service): \(error)") }
        // The journal's file removed or damaged during the share: what it could not take was never
        // printed nor sent, and the exit status says so.
        if let failure = await journal?.lastingFailure { throw CommandFailure("\(failure)") }
        if let failure = sourceFailure.withLock({ $0 }) { throw CommandFailure(failure) }
        return 0
    }
}

/// SIGUSR1: the share's end 15 minutes later (capped at 8 h from now), said in one line on stderr.
private func extendOnSignal(_ broadcaster: LiveLocationBroadcaster, log: Logger) async {
    let amount = ShareDuration.fifteenMinutes
    switch await broadcaster.extend(by: amount).outcome {
    case .extended(let share, _, let capped):
        log.notice("SIGUSR1: share \(share.id) extended by \(amount.rawValue), until \(share.expiresAt)"
                   + (capped ? " (capped at \(ShareDuration.longest.rawValue) from now)" : ""))
    case .ending(let id):
        log.warning("SIGUSR1: share \(id) is ending (its time is up); not extended")
    case .noActiveShare:
        log.warning("SIGUSR1: no active share to extend")
    }
}

/// `off` (or zero): no interval; otherwise the one duration syntax. Nil (bad usage) for anything else.
private func offOrDuration(_ text: String) -> Duration?? {
    if text == "off" { return .some(nil) }
    return Duration(durationText: text).map { $0 == .zero ? nil : $0 }
}

func nonNegativeNumber(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return value
}
