@testable import LiveLocation
import Testing

@Suite struct TrackRecordingTests {
    /// Every batch the broadcaster emits, after `finish()`.
    func batches(of broadcaster: LiveLocationBroadcaster) async -> [ShareBatch] {
        await broadcaster.finish()
        var result: [ShareBatch] = []
        for await batch in broadcaster.batches { result.append(batch) }
        return result
    }

    @Test func everyFixTheShareAcceptedThrottledOnesIncludedRidesWithTheBatches() async {
        let clock = ManualClock(now: start)
        let broadcaster = LiveLocationBroadcaster(clock: clock, throttle: Throttle(minInterval: .seconds(10)), recordsTrack: true)
        await deliver(fix(at: 0.5), to: broadcaster, clock: clock)  // no share yet: not part of any track
        let (share, _) = await broadcaster.start(.fifteenMinutes)
        for second in 1...30 { await deliver(fix(at: Double(second)), to: broadcaster, clock: clock) }
        await broadcaster.stop()
        let all = await batches(of: broadcaster)
        let tracked = all.flatMap(\.fixes)
        #expect(tracked.map(\.fix) == (1...30).map { fix(at: Double($0)) })
        #expect(tracked.allSatisfy { $0.shareID == share.id })
        // 3 updates, the final one and ended: the 27 throttled fixes travelled with them.
        #expect(all.flatMap(\.events).count == 5)
    }

    @Test func fixesWaitingForAnUpdateMakeABatchOfTheirOwnAfter64() async {
        let clock = ManualClock(now: start)
        // A stationary receiver with a distance throttle: one update, then only throttled fixes.
        let broadcaster = LiveLocationBroadcaster(clock: clock, throttle: Throttle(minDistanceMeters: 100), recordsTrack: true)
        let guardTask = Task {
            try await Task.sleep(for: .seconds(10))
            await broadcaster.finish()
        }
        defer { guardTask.cancel() }
        await broadcaster.start(.oneHour)
        var iterator = broadcaster.batches.makeAsyncIterator()
        _ = await iterator.next()  // the start
        await deliver(fix(at: 1, northMeters: 0), to: broadcaster, clock: clock)
        let update = await iterator.next()
        #expect(update?.events.count == 1 && update?.fixes.count == 1)
        for second in 2..<(2 + EventChannel.trackBatchLimit) {
            await deliver(fix(at: Double(second), northMeters: 0), to: broadcaster, clock: clock)
        }
        let throttled = await iterator.next()
        #expect(throttled?.events.isEmpty == true)
        #expect(throttled?.fixes.count == EventChannel.trackBatchLimit)
        await broadcaster.finish()
    }

    @Test func fixesStillWaitingAtFinishGoOutWithALastBatch() async {
        let clock = ManualClock(now: start)
        let broadcaster = LiveLocationBroadcaster(clock: clock, throttle: Throttle(minInterval: .seconds(60)), recordsTrack: true)
        await broadcaster.start(.oneHour)
        for second in 1...5 { await deliver(fix(at: Double(second)), to: broadcaster, clock: clock) }
        #expect(await batches(of: broadcaster).flatMap(\.fixes).count == 5)
    }

    @Test func withoutRecordingBatchesCarryNoFixes() async {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.oneHour)
        for second in 1...5 { await deliver(fix(at: Double(second)), to: broadcaster, clock: clock) }
        #expect(await batches(of: broadcaster).allSatisfy(\.fixes.isEmpty))
    }
}
