import Delivery
import Pipeline
import Locking
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

    /// The product's path: the broadcaster's batches through the one ShareDispatcher to stdout.
    private func broadcasterPath() async throws -> [Duration] {
        let replay = try NMEAReplaySource(path: path, speed: speed)
        let entered = Stamps()
        let written = Locked<[ContinuousClock.Instant]>([])
        let shareID = ShareID.random()
        var plan = SharePipeline.Plan(clock: replay.clock, log: .silent)
        plan.stdout = .direct
        plan.onEvents = { broadcaster, events in
            let now = ContinuousClock.now
            for event in events {
                if case .updated(shareID, _, let location) = event, location.isActive {
                    written.withLock { $0.append(now) }
                }
                if case .ended(shareID, _, _) = event { await broadcaster.finish() }
            }
        }
        let pipeline = try await SharePipeline(plan)
        let (broadcaster, dispatcher) = (pipeline.broadcaster, pipeline.dispatcher)
        await broadcaster.start(.eightHours, id: shareID)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await broadcaster.pump(from: StampedReplay(replay: replay, stamps: entered)) }
            await dispatcher.run(broadcaster.batches)
            try await group.waitForAll()
        }
        return try latencies(entered: entered.all, written: written.withLock { $0 })
    }

    private func directPath() async throws -> [Duration] {
        let replay = try NMEAReplaySource(path: path, speed: speed)
        let entered = Stamps()
        var written: [ContinuousClock.Instant] = []
        let stdout = try StdoutWriter(mode: .direct, log: .silent)
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
            stdout.write(CollectionOfOne(.updated(shareID: id, seq: seq, location: location)))
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
