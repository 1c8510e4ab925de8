@testable import LiveLocation
import Testing

/// Extending the active share: the engine's rules, and the broadcaster's batches and timer.
@Suite struct ShareExtensionTests {
    @Test func extendingAtFourteenMinutesSendsTheNewestPositionWithTheNewEndAndTheSameIdStartAndNextSeq() {
        var engine = ShareEngine(throttle: .off)
        let id = ShareID.random()
        _ = engine.start(id: id, duration: .seconds(900), at: ClockReading(now: start))
        var events: [ShareEvent] = []
        engine.accept(fix(at: 840), at: ClockReading(now: start + .seconds(840)), into: &events)
        events.removeAll()
        let outcome = engine.extend(by: ShareDuration.fifteenMinutes.duration, at: ClockReading(now: start + .seconds(840)), into: &events)
        #expect(outcome == .extended(engine.active!, previousExpiresAt: start + .seconds(900), capped: false))
        #expect(engine.active?.expiresAt == start + .seconds(1800))
        #expect(events.count == 1)
        #expect(events.first?.shareID == id && events.first?.seq == 2)
        let location = events.first?.location
        #expect(location?.expiresAt == start + .seconds(1800))
        #expect(location?.startedAt == start)
        #expect(location?.isActive == true)
        #expect(location?.lastUpdateAt == start + .seconds(840))
    }

    @Test func anExtensionBeforeTheFirstPositionEmitsNothingAndTheFirstUpdateCarriesTheNewEnd() {
        var engine = ShareEngine(throttle: .off)
        _ = engine.start(id: .random(), duration: .seconds(900), at: ClockReading(now: start))
        var events: [ShareEvent] = []
        _ = engine.extend(by: .seconds(3600), at: ClockReading(now: start + .seconds(10)), into: &events)
        #expect(events.isEmpty)
        engine.accept(fix(at: 20), at: ClockReading(now: start + .seconds(20)), into: &events)
        #expect(events.first?.seq == 1)
        #expect(events.first?.location?.expiresAt == start + .seconds(4500))
    }

    @Test func anExtensionPastEightHoursFromNowEndsTheShareExactlyEightHoursFromNow() {
        var engine = ShareEngine(throttle: .off)
        _ = engine.start(id: .random(), duration: .seconds(8 * 3600), at: ClockReading(now: start))
        var events: [ShareEvent] = []
        let now = start + .seconds(600)
        let outcome = engine.extend(by: .seconds(3600), at: ClockReading(now: now), into: &events)
        #expect(engine.active?.expiresAt == now + .seconds(8 * 3600))
        guard case .extended(_, let previous, let capped) = outcome else { Issue.record("\(outcome)"); return }
        #expect(previous == start + .seconds(8 * 3600))
        #expect(capped)
        // At the cap already: capped, nothing moves, nothing is sent.
        events.removeAll()
        let again = engine.extend(by: .seconds(900), at: ClockReading(now: now), into: &events)
        #expect(again == .extended(engine.active!, previousExpiresAt: now + .seconds(8 * 3600), capped: true))
        #expect(events.isEmpty)
    }

    @Test func anExtensionWithNoActiveShareIsRefusedAndEmitsNothing() {
        var engine = ShareEngine(throttle: .off)
        var events: [ShareEvent] = []
        #expect(engine.extend(by: .seconds(900), at: ClockReading(now: start), into: &events) == .noActiveShare)
        _ = engine.start(id: .random(), duration: .seconds(900), at: ClockReading(now: start))
        _ = engine.end(reason: .stopped, at: ClockReading(now: start + .seconds(5)))
        #expect(engine.extend(by: .seconds(900), at: ClockReading(now: start + .seconds(6)), into: &events) == .noActiveShare)
        #expect(events.isEmpty)
    }

    @Test func anExtensionOnceTheTimeIsUpIsRefusedAsEndingAndEndsTheShareAtItsOriginalExpiry() {
        var engine = ShareEngine(throttle: .off)
        let id = ShareID.random()
        _ = engine.start(id: id, duration: .seconds(900), at: ClockReading(now: start))
        var events: [ShareEvent] = []
        engine.accept(fix(at: 100), at: ClockReading(now: start + .seconds(100)), into: &events)
        events.removeAll()
        // The expiry instant has come; the timer has not fired yet.
        let outcome = engine.extend(by: .seconds(900), at: ClockReading(now: start + .seconds(900)), into: &events)
        #expect(outcome == .ending(id))
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events.first?.location?.expiresAt == start + .seconds(900))
        #expect(events.last?.endReason == .expired)
        #expect(engine.active == nil)
    }

    @Test func theThrottleComparesTheNextFixWithThePositionTheExtensionSent() {
        var engine = ShareEngine(throttle: Throttle(minInterval: .seconds(30)))
        _ = engine.start(id: .random(), duration: .seconds(900), at: ClockReading(now: start))
        var events: [ShareEvent] = []
        engine.accept(fix(at: 1), at: ClockReading(now: start + .seconds(1)), into: &events)
        engine.accept(fix(at: 5), at: ClockReading(now: start + .seconds(5)), into: &events)  // throttled: the newest position
        events.removeAll()
        _ = engine.extend(by: .seconds(900), at: ClockReading(now: start + .seconds(6)), into: &events)
        #expect(events.first?.location?.lastUpdateAt == start + .seconds(5))
        engine.accept(fix(at: 20), at: ClockReading(now: start + .seconds(20)), into: &events)  // 15 s after the extension's update
        #expect(events.count == 1)
    }

    @Test func theBroadcasterEndsAnExtendedShareAtItsNewEndWithTheFinalUpdateAndEnded() async {
        let (broadcaster, clock) = makeBroadcaster()
        let share = await broadcaster.start(.fifteenMinutes).share
        var iterator = broadcaster.events.makeAsyncIterator()
        await deliver(fix(at: 840), to: broadcaster, clock: clock)
        #expect(await nextEvent(&iterator, of: broadcaster)?.seq == 1)
        let (outcome, input) = await broadcaster.extend(by: .fifteenMinutes)
        #expect(input > 0)
        guard case .extended(let extended, _, false) = outcome else { Issue.record("\(outcome)"); return }
        #expect(extended.expiresAt == start + .seconds(1800))
        #expect(await nextEvent(&iterator, of: broadcaster)?.location?.expiresAt == start + .seconds(1800))
        // The old end passes: the share goes on.
        clock.advance(to: start + .seconds(1000))
        await deliver(fix(at: 1000), to: broadcaster, clock: clock)
        let after = await nextEvent(&iterator, of: broadcaster)
        #expect(after?.location?.isActive == true && after?.seq == 3)
        // The new end: the final update, then ended, as always.
        clock.advance(to: start + .seconds(1800))
        let final = await nextEvent(&iterator, of: broadcaster)
        let ended = await nextEvent(&iterator, of: broadcaster)
        #expect(final?.location?.isActive == false)
        #expect(final?.location?.expiresAt == start + .seconds(1800))
        #expect(final?.seq == 4)
        #expect(ended == .ended(shareID: share.id, seq: 5, reason: .expired))
    }

    @Test func theExtensionsBatchCarriesTheShareWithItsNewEnd() async {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.oneHour)
        var batches = broadcaster.batches.makeAsyncIterator()
        _ = await batches.next()  // the start's
        await deliver(fix(at: 5), to: broadcaster, clock: clock)
        _ = await batches.next()
        let input = await broadcaster.extend(by: .oneHour).input
        let batch = await batches.next()
        #expect(batch?.through == input)
        #expect(batch?.share?.expiresAt == start + .seconds(7200))
        #expect(batch?.events.map(\.seq) == [2])
        await broadcaster.finish()  // its share is still active: see makeBroadcaster
    }
}
