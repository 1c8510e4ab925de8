import ArgumentParsing
import Delivery
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

        exit status: 0 after the share ended, 1 on a runtime failure, 2 on bad usage or input.
        """

    static let options: [String: Arguments.Kind] = [
        "--duration": .value, "--replay": .value, "--speed": .value, "--loop": .flag,
        "--gpsd": .optionalValue, "--gpsd-device": .value,
        "--min-interval": .value, "--min-distance": .value,
    ]

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: options)
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        guard let duration = try arguments.value("--duration", as: "15m, 1h or 8h", ShareDuration.init(argument:)) else {
            throw UsageError("missing --duration 15m|1h|8h")
        }
        let throttle = try throttleOptions(arguments)
        if let path = arguments.value("--replay") {
            guard !arguments.has("--gpsd") else { throw UsageError("--replay and --gpsd exclude each other") }
            let speed = try arguments.value("--speed", as: "a number >= 0", nonNegativeNumber) ?? 1
            let source: NMEAReplaySource
            do {
                source = try NMEAReplaySource(path: path, speed: speed, loop: arguments.has("--loop"))
            } catch {
                throw CommandFailure("\(error)", exitStatus: 2)
            }
            return try await runShare(duration: duration, source: source, clock: source.clock, throttle: throttle)
        }
        if arguments.has("--gpsd") {
            for replayOnly in ["--speed", "--loop"] where arguments.has(replayOnly) {
                throw UsageError("\(replayOnly) needs --replay")
            }
            let endpoint = try arguments.value("--gpsd", as: "HOST, HOST:PORT or [IPV6]:PORT", GPSDEndpoint.init(parsing:))
                ?? .default
            let source = GPSDSource(endpoint: endpoint, device: arguments.value("--gpsd-device")) { printError($0) }
            return try await runShare(duration: duration, source: source, clock: WallClock(), throttle: throttle)
        }
        throw UsageError("missing source: --replay FILE or --gpsd [HOST[:PORT]]")
    }

    static func throttleOptions(_ arguments: Arguments) throws(UsageError) -> Throttle {
        let interval = try arguments.value("--min-interval", as: "seconds >= 0", nonNegativeNumber)
        let distance = try arguments.value("--min-distance", as: "metres >= 0", nonNegativeNumber)
        return Throttle(minInterval: interval.map { .milliseconds(Int64($0 * 1000)) }, minDistanceMeters: distance)
    }

    /// Runs one share from `source` to its end: the source pump, the event writer and the signal
    /// watcher are tasks of one group; the share's `ended` event ends them all.
    static func runShare<Source: LocationSource>(
        duration: ShareDuration, source: Source, clock: any ShareClock, throttle: Throttle
    ) async throws -> Int32 {
        let broadcaster = LiveLocationBroadcaster(clock: clock, throttle: throttle)
        let share = await broadcaster.start(duration)
        let sinks: [any EventSink] = [StdoutSink()]
        let signals = signalStream([SIGINT, SIGTERM])

        let sourceFailure: String? = try await withThrowingTaskGroup(of: TaskOutcome.self) { group in
            group.addTask {
                for await event in broadcaster.events {
                    for sink in sinks { try await sink.deliver(event) }
                    if case .ended(share.id, _, _) = event { break }
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
            group.cancelAll()
            return failure
        }
        await broadcaster.finish()
        if let sourceFailure { throw CommandFailure(sourceFailure) }
        return 0
    }
}

private enum TaskOutcome: Sendable {
    case shareEnded
    case sourceFinished(failure: String?)
    case signalled
}

private func nonNegativeNumber(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
    return value
}
