import Delivery
import Webhook
import LiveLocation
import Replay
import SystemIO

/// One measured replay: the time from each fix leaving the source to its event's write returning.
struct LatencyRun {
    let path: String
    let speed: Double

    /// Source → broadcaster → consumer → stdout: the path of `liveloc share`, on a thread of its own
    /// as there (a fix's way to stdout never waits for a cooperative-pool thread to wake up).
    func throughBroadcaster() async throws -> [Duration] {
        let thread = try ThreadExecutor(name: "bench-share")
        defer { thread.shutdown() }
        return try await withTaskExecutorPreference(thread) { try await broadcasterPath() }
    }

    /// Source → the same event built in place → stdout: the reference without the broadcaster, on
    /// the same kind of thread.
    func direct() async throws -> [Duration] {
        let thread = try ThreadExecutor(name: "bench-direct")
        defer { thread.shutdown() }
        return try await withTaskExecutorPreference(thread) { try await directPath() }
    }

    private func broadcasterPath() async throws -> [Duration] {
        let replay = try NMEAReplaySource(path: path, speed: speed)
        let entered = Stamps()
        var written: [ContinuousClock.Instant] = []
        let broadcaster = LiveLocationBroadcaster(clock: replay.clock)
        let share = await broadcaster.start(.eightHours)
        let sink = StdoutSink()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await broadcaster.pump(from: StampedReplay(replay: replay, stamps: entered)) }
            for await event in broadcaster.events {
                try await sink.deliver(event)
                if case .updated(share.id, _, let location) = event, location.isActive {
                    written.append(ContinuousClock.now)
                }
                if case .ended(share.id, _, _) = event { break }
            }
            try await group.waitForAll()
        }
        await broadcaster.finish()
        return try latencies(entered: entered.all, written: written)
    }

    private func directPath() async throws -> [Duration] {
        let replay = try NMEAReplaySource(path: path, speed: speed)
        let entered = Stamps()
        var written: [ContinuousClock.Instant] = []
        let sink = StdoutSink()
        let id = ShareID.random()
        let startedAt = replay.clock.now
        let expiresAt = startedAt + ShareDuration.eightHours.duration
        var seq = 0
        for try await fix in StampedReplay(replay: replay, stamps: entered).fixes() {
            seq += 1
            let location = LiveLocation(
                latitude: fix.latitude, longitude: fix.longitude, lastUpdateAt: fix.time,
                startedAt: startedAt, expiresAt: expiresAt, isActive: true,
                accuracyMeters: fix.horizontalAccuracyMeters, altitudeMeters: fix.altitudeMSLMeters,
                speedMetersPerSecond: fix.speedMetersPerSecond, courseDegreesTrue: fix.courseDegreesTrue)
            try await sink.deliver(.updated(shareID: id, seq: seq, location: location))
            written.append(ContinuousClock.now)
        }
        return try latencies(entered: entered.all, written: written)
    }

    private func latencies(entered: [ContinuousClock.Instant], written: [ContinuousClock.Instant]) throws -> [Duration] {
        guard entered.count == written.count, !entered.isEmpty else {
            throw BenchError("\(path): \(entered.count) fixes entered but \(written.count) events written")
        }
        return zip(entered, written).map { $1 - $0 }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
