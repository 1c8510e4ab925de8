import ArgumentParsing
import Foundation
import Delivery
import Webhook
import GPSD
import LiveLocation
import Replay
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// `liveloc share`: one share in the foreground, its events as JSON lines on stdout.
enum ShareCommand: Command {
    static let name = "share"
    static let summary = "run one share in the foreground, events as JSON lines on stdout"
    static let help = """
        usage: liveloc share --duration 15m|1h|8h (--replay FILE [--speed X] [--loop] | --gpsd [HOST[:PORT]])
                             [--min-interval SECONDS] [--min-distance METERS]
                             [--precision METRES] [--zone LAT,LON,RADIUS ...]
                             [--webhook URL --webhook-secret-file FILE [--webhook-ca-file FILE]
                              [--webhook-backlog all|latest] [--outbox PATH] [--drain-timeout SECONDS]]

        Runs one live-location share and prints its events on stdout, one JSON object per line
        (the format is in README.md). Exits 0 after the share's `ended` event. SIGINT or SIGTERM
        stops the share: its final update and `ended` are printed, then liveloc exits.

        options:
          --duration D        15m, 1h or 8h (required)
          --replay FILE       replay an NMEA 0183 log; the share runs on the log's own timeline
          --speed X           replay X times faster than real time; 0 = as fast as possible (default 1)
          --loop              start the log again at its end instead of ending the share
          --gpsd [HOST[:PORT]] fixes from gpsd (default localhost:2947; IPv6 as [::1]:2947); the share
                              runs on the wall clock, and survives gpsd restarts (it reconnects)
          --gpsd-device PATH  only this device of gpsd's
          --min-interval S    drop fixes less than S seconds after the last update (default off)
          --min-distance M    drop fixes less than M metres from the last update (default off)
        \(PrivacyOptions.help)
          --webhook URL       also POST every event to URL (Standard Webhooks signed; see README.md)
          --webhook-secret-file FILE   the whsec_… signing secret(s), one per line (required with --webhook)
          --webhook-ca-file FILE       trust this CA bundle for HTTPS instead of the system store
          --webhook-backlog P all (default: deliver every event) or latest (after an outage, skip
                              stale positions; final update and ended are always delivered)
          --outbox PATH       the durable outbox (default $XDG_STATE_HOME/liveloc/outbox.sqlite or
                              ~/.local/state/liveloc/outbox.sqlite); undelivered events stay there and
                              go out at the next run with the same outbox
          --drain-timeout S   after the share ended, wait at most S seconds for the webhook to
                              take every event (default 30)

        exit status: 0 after the share ended, 1 on a runtime failure, 2 on bad usage or input.
        """

    static let options: [String: Arguments.Kind] = [
        "--duration": .value, "--replay": .value, "--speed": .value, "--loop": .flag,
        "--gpsd": .optionalValue, "--gpsd-device": .value,
        "--min-interval": .value, "--min-distance": .value,
        "--webhook": .value, "--webhook-secret-file": .value, "--webhook-ca-file": .value,
        "--webhook-backlog": .value, "--outbox": .value, "--drain-timeout": .value,
    ].merging(PrivacyOptions.options) { $1 }

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: options)
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        guard let duration = try arguments.value("--duration", as: "15m, 1h or 8h", ShareDuration.init(argument:)) else {
            throw UsageError("missing --duration 15m|1h|8h")
        }
        let throttle = try throttleOptions(arguments)
        let privacy = try PrivacyOptions.filter(arguments)
        let webhook = try webhookOptions(arguments)
        if let path = arguments.value("--replay") {
            guard !arguments.has("--gpsd") else { throw UsageError("--replay and --gpsd exclude each other") }
            let speed = try arguments.value("--speed", as: "a number >= 0", nonNegativeNumber) ?? 1
            let source: NMEAReplaySource
            do {
                source = try NMEAReplaySource(path: path, speed: speed, loop: arguments.has("--loop"))
            } catch {
                throw CommandFailure("\(error)", exitStatus: 2)
            }
            return try await runShare(duration: duration, source: source, clock: source.clock, throttle: throttle,
                                    privacy: privacy, webhook: webhook)
        }
        if arguments.has("--gpsd") {
            for replayOnly in ["--speed", "--loop"] where arguments.has(replayOnly) {
                throw UsageError("\(replayOnly) needs --replay")
            }
            let endpoint = try arguments.value("--gpsd", as: "HOST, HOST:PORT or [IPV6]:PORT", GPSDEndpoint.init(parsing:))
                ?? .default
            let source = GPSDSource(endpoint: endpoint, device: arguments.value("--gpsd-device")) { printError($0) }
            return try await runShare(duration: duration, source: source, clock: WallClock(), throttle: throttle,
                                    privacy: privacy, webhook: webhook)
        }
        throw UsageError("missing source: --replay FILE or --gpsd [HOST[:PORT]]")
    }

    static func throttleOptions(_ arguments: Arguments) throws(UsageError) -> Throttle {
        let interval = try arguments.value("--min-interval", as: "seconds >= 0", nonNegativeNumber)
        let distance = try arguments.value("--min-distance", as: "metres >= 0", nonNegativeNumber)
        return Throttle(minInterval: interval.map { .milliseconds(Int64($0 * 1000)) }, minDistanceMeters: distance)
    }

    /// The webhook sink's settings, when `--webhook` is given.
    static func webhookOptions(_ arguments: Arguments) throws -> (configuration: WebhookConfiguration, drainTimeout: Duration)? {
        let webhookOnly = ["--webhook-secret-file", "--webhook-ca-file", "--webhook-backlog", "--outbox", "--drain-timeout"]
        guard let url = arguments.value("--webhook") else {
            if let stray = webhookOnly.first(where: arguments.has) { throw UsageError("\(stray) needs --webhook URL") }
            return nil
        }
        guard let secretFile = arguments.value("--webhook-secret-file") else {
            throw UsageError("--webhook needs --webhook-secret-file FILE (secrets never go on the command line)")
        }
        let backlog = try arguments.value("--webhook-backlog", as: "all or latest", BacklogPolicy.init(rawValue:)) ?? .all
        let drain = try arguments.value("--drain-timeout", as: "seconds >= 0", nonNegativeNumber) ?? 30
        let secrets: [WebhookSecret]
        do {
            secrets = try WebhookSecret.load(fromFile: secretFile)
        } catch {
            throw CommandFailure("\(error)", exitStatus: 2)
        }
        let outbox = try arguments.value("--outbox") ?? defaultOutboxPath()
        return (WebhookConfiguration(url: url, secrets: secrets, outboxPath: outbox,
                                     caFile: arguments.value("--webhook-ca-file"), backlog: backlog),
                .milliseconds(Int64(drain * 1000)))
    }

    /// `$XDG_STATE_HOME/liveloc/outbox.sqlite` (or under `~/.local/state`), its directory created.
    static func defaultOutboxPath() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? "/tmp") + "/.local/state"
        let directory = stateHome + "/liveloc"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create the outbox directory \(directory): \(error.localizedDescription)")
        }
        return directory + "/outbox.sqlite"
    }

    /// Runs one share from `source` to its end: the source pump, the event writer and the signal
    /// watcher are tasks of one group, on one thread of their own (see `ThreadExecutor`: an event
    /// reaches stdout without a cross-CPU wake-up); the share's `ended` event ends them all.
    static func runShare<Source: LocationSource>(
        duration: ShareDuration, source: Source, clock: any ShareClock, throttle: Throttle, privacy: PrivacyFilter,
        webhook: (configuration: WebhookConfiguration, drainTimeout: Duration)?
    ) async throws -> Int32 {
        let pipeline: ThreadExecutor
        do {
            pipeline = try ThreadExecutor(name: "liveloc-share")
        } catch {
            throw CommandFailure("\(error)")
        }
        defer { pipeline.shutdown() }
        return try await withTaskExecutorPreference(pipeline) {
            try await runShareTasks(duration: duration, source: source, clock: clock, throttle: throttle,
                                    privacy: privacy, webhook: webhook)
        }
    }

    private static func runShareTasks<Source: LocationSource>(
        duration: ShareDuration, source: Source, clock: any ShareClock, throttle: Throttle, privacy: PrivacyFilter,
        webhook: (configuration: WebhookConfiguration, drainTimeout: Duration)?
    ) async throws -> Int32 {
        let webhookSink: WebhookSink?
        do {
            webhookSink = try webhook.map { try WebhookSink(configuration: $0.configuration) { printError($0) } }
        } catch {
            throw CommandFailure("\(error)")
        }
        let broadcaster = LiveLocationBroadcaster(clock: clock, throttle: throttle, privacy: privacy)
        let share = await broadcaster.start(duration)
        let sinks: [any EventSink] = [StdoutSink()] + (webhookSink.map { [$0] } ?? [])
        let signals = signalStream([SIGINT, SIGTERM])

        let sourceFailure: String? = try await withThrowingTaskGroup(of: TaskOutcome.self) { group in
            group.addTask {
                var events = broadcaster.events.makeAsyncIterator()
                while var batch = await events.nextBatch() {
                    let end = batch.firstIndex { if case .ended(share.id, _, _) = $0 { true } else { false } }
                    if let end { batch = batch[...end] }
                    for sink in sinks { try await sink.deliver(contentsOf: batch) }
                    if end != nil { break }
                }
                return .shareEnded
            }
            group.addTask {
                do {
                    try await broadcaster.pump(from: source)
                    return .sourceFinished(failure: nil)
                } catch is CancellationError {
                    return .sourceFinished(failure: nil)
                } catch {
                    await broadcaster.sourceEnded()
                    return .sourceFinished(failure: "source failed: \(error)")
                }
            }
            if let webhookSink {
                // HTTP attempts and outbox commits block: not on the pipeline's thread.
                group.addTask(executorPreference: globalConcurrentExecutor) {
                    do {
                        try await webhookSink.run()
                    } catch is CancellationError {
                    } catch {
                        // The outbox failed: nothing can be promised any more; stop loudly.
                        printError("webhook: \(error)")
                        exit(1)
                    }
                    return .webhookStopped
                }
            }
            group.addTask {
                for await _ in signals {
                    await broadcaster.stop()
                    break
                }
                return .signalled
            }
            // Whatever ends the share, its `ended` reaches the writer last: wait for the writer.
            var failure: String?
            while let outcome = try await group.next() {
                if case .sourceFinished(let message?) = outcome { failure = message }
                if case .shareEnded = outcome { break }
            }
            if let webhookSink, let drainTimeout = webhook?.drainTimeout {
                await drain(webhookSink, within: drainTimeout)
            }
            group.cancelAll()
            return failure
        }
        await broadcaster.finish()
        if let sourceFailure { throw CommandFailure(sourceFailure) }
        return 0
    }
}

/// Waits until the webhook took every event, or `timeout`; what is left stays in the outbox.
private func drain(_ sink: WebhookSink, within timeout: Duration) async {
    let drained = await withTaskGroup(of: Bool.self) { group in
        group.addTask { await sink.drained(); return true }
        group.addTask { try? await Task.sleep(for: timeout); return false }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    if !drained {
        let pending = await sink.status.pending
        printError("webhook: \(pending) event(s) not delivered yet; they stay in the outbox for the next run")
    }
}

private enum TaskOutcome: Sendable {
    case shareEnded
    case sourceFinished(failure: String?)
    case signalled
    case webhookStopped
}

private func nonNegativeNumber(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return value
}
