@testable import LiveLocation
import Testing

@Suite struct LiveLocationBroadcasterTests {
    @Test func everyAcceptedFixOfAnActiveShareIsAnUpdateNumberedFromOne() async {
        let (broadcaster, clock) = makeBroadcaster()
        let share = await broadcaster.start(.fifteenMinutes).share
        for second in 1...3 { await deliver(fix(at: Double(second)), to: broadcaster, clock: clock) }
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "updated", "updated"])
        #expect(events.map(\.seq) == [1, 2, 3])
        #expect(events.allSatisfy { $0.shareID == share.id })
        let location = events[2].location!
        #expect(location.startedAt == start)
        #expect(location.expiresAt == start + .seconds(900))
        #expect(location.lastUpdateAt == start + .seconds(3))
        #expect(location.isActive)
        #expect(location.latitude == fix(at: 3).latitude)
        #expect(location.accuracyMeters == 2.5 && location.altitudeMeters == 34 && location.speedMetersPerSecond == 11.1)
    }

    @Test func fixesWithoutAnActiveShareEmitNothing() async {
        let (broadcaster, clock) = makeBroadcaster()
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        #expect(await drain(broadcaster).isEmpty)
    }

    @Test func eightHourShareExpiresExactlyAtStartPlusEightHoursWithAFinalInactiveUpdate() async {
        let (broadcaster, clock) = makeBroadcaster()
        let share = await broadcaster.start(.eightHours).share
        var iterator = broadcaster.events.makeAsyncIterator()
        await deliver(fix(at: 10), to: broadcaster, clock: clock)
        #expect(await nextEvent(&iterator, of: broadcaster)?.kind == "updated")

        clock.advance(by: .seconds(8 * 3600))
        let final = await nextEvent(&iterator, of: broadcaster)
        let ended = await nextEvent(&iterator, of: broadcaster)
        #expect(final?.location?.expiresAt == start + .seconds(8 * 3600))
        #expect(final?.location?.isActive == false)
        #expect(final?.location?.lastUpdateAt == start + .seconds(10))
        #expect(final?.seq == 2)
        #expect(ended == .ended(shareID: share.id, seq: 3, reason: .expired))
        #expect(await broadcaster.activeShare == nil)
    }

    @Test func shareExpiresOnTimeEvenWhenNoFixArrivesAfterTheLastOne() async {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.fifteenMinutes)
        var iterator = broadcaster.events.makeAsyncIterator()
        await deliver(fix(at: 60), to: broadcaster, clock: clock)
        _ = await nextEvent(&iterator, of: broadcaster)
        clock.advance(to: start + .seconds(899))
        clock.advance(to: start + .seconds(2000))  // the source is silent; only the clock moves
        let final = await nextEvent(&iterator, of: broadcaster)
        #expect(final?.location?.expiresAt == start + .seconds(900))
        #expect(await nextEvent(&iterator, of: broadcaster)?.endReason == .expired)
    }

    @Test func aFixAtTheExpiryInstantIsNotPartOfTheShare() async {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.fifteenMinutes)
        await deliver(fix(at: 899), to: broadcaster, clock: clock)
        await deliver(fix(at: 900), to: broadcaster, clock: clock)
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "final", "ended"])
        #expect(events[1].location?.lastUpdateAt == start + .seconds(899))
        #expect(events[1].location?.expiresAt == start + .seconds(900))
    }

    @Test func startingAShareWhileOneIsActiveEndsTheOldOneBeforeTheNewOnesFirstUpdate() async {
        let (broadcaster, clock) = makeBroadcaster()
        let old = await broadcaster.start(.oneHour).share
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        clock.advance(to: start + .seconds(5))
        let new = await broadcaster.start(.fifteenMinutes).share
        await deliver(fix(at: 6), to: broadcaster, clock: clock)
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "final", "ended", "updated"])
        #expect(events.map(\.shareID) == [old.id, old.id, old.id, new.id])
        #expect(events[1].location?.expiresAt == start + .seconds(5))
        #expect(events[2].endReason == .superseded)
        #expect(events[3].seq == 1)
        #expect(new.startedAt == start + .seconds(5) && new.expiresAt == start + .seconds(905))
    }

    @Test func stoppingEmitsTheLastPositionWithExpiryNowThenEnded() async {
        let (broadcaster, clock) = makeBroadcaster()
        let share = await broadcaster.start(.oneHour).share
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        await deliver(fix(at: 2), to: broadcaster, clock: clock)
        clock.advance(to: start + .seconds(30))
        let stopped = await broadcaster.stop().share
        let events = await drain(broadcaster)
        #expect(stopped?.id == share.id)
        #expect(events.map(\.kind) == ["updated", "updated", "final", "ended"])
        #expect(events[2].location?.expiresAt == start + .seconds(30))
        #expect(events[2].location?.lastUpdateAt == start + .seconds(2))
        #expect(events[3] == .ended(shareID: share.id, seq: 4, reason: .stopped))
    }

    @Test func stoppingWithNoActiveShareDoesNothing() async {
        let (broadcaster, _) = makeBroadcaster()
        #expect(await broadcaster.stop().share == nil)
        #expect(await drain(broadcaster).isEmpty)
    }

    @Test func aShareThatNeverGotAFixEmitsOnlyEnded() async {
        let (broadcaster, clock) = makeBroadcaster()
        let share = await broadcaster.start(.fifteenMinutes).share
        var iterator = broadcaster.events.makeAsyncIterator()
        clock.advance(by: .seconds(900))
        #expect(await nextEvent(&iterator, of: broadcaster) == .ended(shareID: share.id, seq: 1, reason: .expired))
    }

    @Test func theSourceEndingEndsTheShareWithReasonSourceEnded() async {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.fifteenMinutes)
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        await broadcaster.sourceEnded()
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "final", "ended"])
        #expect(events[1].location?.expiresAt == start + .seconds(1))
        #expect(events[2].endReason == .sourceEnded)
    }

    @Test func minIntervalDropsFixesTooSoonAfterTheLastUpdate() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minInterval: .seconds(5)))
        await broadcaster.start(.fifteenMinutes)
        for second in 0...10 { await deliver(fix(at: Double(second)), to: broadcaster, clock: clock) }
        let events = await drain(broadcaster)
        #expect(events.compactMap { $0.location?.lastUpdateAt } == [0, 5, 10].map { start + .seconds($0) })
    }

    @Test func minDistanceDropsFixesTooNearTheLastUpdate() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minDistanceMeters: 25))
        await broadcaster.start(.fifteenMinutes)
        for (second, north) in [(1.0, 0.0), (2, 10), (3, 20), (4, 30), (5, 40)] {
            await deliver(fix(at: second, northMeters: north), to: broadcaster, clock: clock)
        }
        let events = await drain(broadcaster)
        #expect(events.compactMap { $0.location?.lastUpdateAt } == [1, 4].map { start + .seconds($0) })
    }

    @Test func aTurnOfMoreThanMinAngleIsSentWhateverTheIntervalAndDistanceLimitsSay() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minInterval: .seconds(60), minDistanceMeters: 500,
                                                                      minAngleDegrees: 30))
        await broadcaster.start(.fifteenMinutes)
        // Course per second from the last update's 350°: straight, across north to 15° (25°: kept
        // back), to 30° (40°: sent); then from 30°: 5°, 20°, none (kept back); unknown (kept back).
        let courses: [Double?] = [350, 350, 15, 30, 25, 10, 30, 30, nil]
        for (second, course) in courses.enumerated() {
            var turning = fix(at: Double(second))
            turning.courseDegreesTrue = course
            await deliver(turning, to: broadcaster, clock: clock)
        }
        let events = await drain(broadcaster)
        #expect(events.compactMap { $0.location?.lastUpdateAt } == [0, 3].map { start + .seconds($0) })
    }

    @Test func minAngleAloneDropsNothingAndLetsThroughNoFixTheLimitsWouldDropWithoutATurn() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minAngleDegrees: 10))
        await broadcaster.start(.fifteenMinutes)
        for second in 0...4 { await deliver(fix(at: Double(second)), to: broadcaster, clock: clock) }
        #expect(await drain(broadcaster).count == 5)
        let (limited, limitedClock) = makeBroadcaster(throttle: Throttle(minInterval: .seconds(5), minAngleDegrees: 10))
        await limited.start(.fifteenMinutes)
        for second in 0...6 { await deliver(fix(at: Double(second)), to: limited, clock: limitedClock) }
        #expect(await drain(limited).compactMap { $0.location?.lastUpdateAt } == [0, 5].map { start + .seconds($0) })
    }

    @Test func theFinalUpdateCarriesTheNewestPositionEvenWhenItWasThrottled() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minInterval: .seconds(60)))
        await broadcaster.start(.fifteenMinutes)
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        await deliver(fix(at: 2), to: broadcaster, clock: clock)
        await broadcaster.stop()
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "final", "ended"])
        #expect(events[1].location?.lastUpdateAt == start + .seconds(2))
    }

    @Test func resumingAPersistedShareKeepsItsIdExpiryAndNumbering() async {
        let (broadcaster, clock) = makeBroadcaster()
        let id = ShareID.random()
        await broadcaster.resume(ShareSnapshot(id: id, startedAt: start - .seconds(60), expiresAt: start + .seconds(840),
                                               lastFix: fix(at: -1), lastSentFix: fix(at: -1), seq: 41, updatesSent: 41))
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        let events = await drain(broadcaster)
        #expect(events.count == 1)
        #expect(events[0].shareID == id && events[0].seq == 42)
        #expect(events[0].location?.startedAt == start - .seconds(60))
        #expect(events[0].location?.expiresAt == start + .seconds(840))
    }

    @Test func resumingAShareThatExpiredMeanwhileEndsItAtItsOriginalExpiry() async {
        let (broadcaster, _) = makeBroadcaster()
        let id = ShareID.random()
        await broadcaster.resume(ShareSnapshot(id: id, startedAt: start - .seconds(3600), expiresAt: start - .seconds(2700),
                                               lastFix: fix(at: -2800), seq: 7, updatesSent: 7))
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events[0].location?.expiresAt == start - .seconds(2700))
        #expect(events[0].seq == 8)
        #expect(events[1] == .ended(shareID: id, seq: 9, reason: .expired))
    }

    @Test func stoppingAfterTheExpiryInstantReportsExpiredAtTheOriginalExpiry() {
        var engine = ShareEngine(throttle: .off)
        let id = ShareID.random()
        _ = engine.start(id: id, duration: .seconds(900), at: ClockReading(now: start))
        var accepted: [ShareEvent] = []
        engine.accept(fix(at: 1), at: ClockReading(now: start + .seconds(1)), into: &accepted)
        let events = engine.end(reason: .stopped, at: ClockReading(now: start + .seconds(1000)))
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events[0].location?.expiresAt == start + .seconds(900))
        #expect(events[1].endReason == .expired)
    }

    @Test func pumpFeedsEveryFixOfASourceAndEndsTheShareWhenTheSourceEnds() async throws {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.fifteenMinutes)
        let source = ArraySource(clock: clock, list: (1...4).map { fix(at: Double($0)) })
        try await broadcaster.pump(from: source)
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "updated", "updated", "updated", "final", "ended"])
        #expect(events.last?.endReason == .sourceEnded)
    }
}

/// A source that yields a fixed list, moving the clock to each fix's time as it yields it.
struct ArraySource: LocationSource, AsyncSequence {
    let clock: ManualClock
    let list: [Fix]

    func fixes() -> ArraySource { self }

    func makeAsyncIterator() -> Iterator { Iterator(clock: clock, remaining: list[...]) }

    struct Iterator: AsyncIteratorProtocol {
        let clock: ManualClock
        var remaining: ArraySlice<Fix>

        mutating func next() async -> Fix? {
            guard let fix = remaining.popFirst() else { return nil }
            clock.advance(to: fix.time)
            return fix
        }
    }
}

@Suite struct ShareEventsBackpressureTests {
    @Test func thePumpWaitsWhileTheConsumerHasTheBacklogLimitOfEventsToTake() async throws {
        let clock = ManualClock(now: start)
        let broadcaster = LiveLocationBroadcaster(clock: clock, backlogLimit: 8)
        await broadcaster.start(.eightHours)
        let source = ArraySource(clock: clock, list: (1...100).map { fix(at: Double($0)) })
        let pump = Task { try await broadcaster.pump(from: source) }
        // Nobody consumes: the pump stops once 8 events wait. Let it get there (at most 5 s), then
        // give it time to run further if it could.
        for _ in 0..<250 where await broadcaster.activeShare?.updatesSent ?? 0 < 8 {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(await broadcaster.activeShare?.updatesSent == 8)
        var iterator = broadcaster.events.makeAsyncIterator()
        var consumed = 0
        while consumed < 102, await nextEvent(&iterator, of: broadcaster) != nil { consumed += 1 }
        try await pump.value
        #expect(consumed == 102)  // 100 updates, the final update and `ended`: nothing dropped
    }
}
