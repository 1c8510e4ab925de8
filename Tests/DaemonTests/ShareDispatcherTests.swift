import Delivery
import Journal
import LiveLocation
import Locking
import Pipeline
import SystemIO
import Testing
import TestSupport

/// An event walks one way: the dispatcher's loop alone commits, `journal.sync_delay`'s rule
/// (`HeldBatches`) decides on instants the test gives (a manual clock), a deadline or a caller
/// waiting wakes the loop, and each runner is handed the entries its commit queued.
@Suite struct ShareDispatcherTests: ShareSamples {
    static func batch(_ id: ShareID, _ seq: Int, through: UInt64, active: Bool = true) -> ShareBatch {
        ShareBatch(events: [update(id, seq, active: active)], share: active ? snapshot(id, seq: seq) : nil, through: through)
    }

    // MARK: the rule, on a manual clock

    @Test func updatesWaitUntilTheNextWouldComeAfterTheOldestOnesDeadline() {
        let t0 = ContinuousClock.now
        let id = ShareID.random()
        var held = HeldBatches(syncDelay: .seconds(3))
        // The share's start is committed at once; then updates every second.
        let start = held.take(ShareBatch(events: [], share: Self.snapshot(id, seq: 0), through: 1), at: t0, awaited: false)
        let committedFirst = held.takeAll().map(\.through)
        let first = held.take(Self.batch(id, 1, through: 2), at: t0 + .seconds(1), awaited: false)
        let deadline = held.deadline
        let second = held.take(Self.batch(id, 2, through: 3), at: t0 + .seconds(2), awaited: false)
        let heldThrough = held.heldThrough
        // Held since 1 s, the next expected 1 s later: at 4 s, the deadline. This one cannot wait.
        let third = held.take(Self.batch(id, 3, through: 4), at: t0 + .seconds(3), awaited: false)
        let committedThen = held.takeAll().map(\.through)
        #expect([start, first, second, third] == [false, true, true, false])
        #expect(committedFirst == [1])
        #expect(deadline == t0 + .seconds(4))
        #expect(heldThrough == 3)
        #expect(committedThen == [2, 3, 4])
        #expect(held.deadline == nil)
        #expect(held.heldThrough == nil)
    }

    @Test func heldUpdatesAreDueAtTheOldestOnesDeadline() {
        let t0 = ContinuousClock.now
        let id = ShareID.random()
        var held = HeldBatches(syncDelay: .seconds(3))
        _ = held.take(Self.batch(id, 1, through: 1), at: t0 + .seconds(9), awaited: false)
        _ = held.takeAll()
        let holds = held.take(Self.batch(id, 2, through: 2), at: t0 + .seconds(10), awaited: false)
        #expect(holds)
        #expect(!held.isDue(at: t0 + .milliseconds(12_999)))
        #expect(held.isDue(at: t0 + .seconds(13)))
    }

    @Test func aSharesStartItsEndAFinalUpdateAndABatchACallerWaitsForNeverWait() {
        let t0 = ContinuousClock.now
        let (first, second) = (ShareID.random(), ShareID.random())
        var held = HeldBatches(syncDelay: .seconds(30))
        var decisions: [Bool] = []
        func take(_ batch: ShareBatch, at second: Int, awaited: Bool = false) {
            decisions.append(held.take(batch, at: t0 + .seconds(second), awaited: awaited))
            _ = held.takeAll()
        }
        take(Self.batch(first, 1, through: 1), at: 0)  // a share not open before
        take(Self.batch(first, 2, through: 2), at: 1, awaited: true)
        take(Self.batch(first, 3, through: 3, active: false), at: 2)
        take(ShareBatch(events: [.ended(shareID: first, seq: 4, reason: .stopped)], share: nil, through: 4), at: 3)
        take(Self.batch(second, 1, through: 5), at: 4)  // another share's first update
        take(Self.batch(second, 2, through: 6), at: 5)  // its second: that one may wait
        #expect(decisions == [false, false, false, false, false, true])
        // Nothing waits without a delay.
        var none = HeldBatches(syncDelay: nil)
        _ = none.take(Self.batch(first, 1, through: 1), at: t0, awaited: false)
        let waits = none.take(Self.batch(first, 2, through: 2), at: t0 + .seconds(1), awaited: false)
        #expect(!waits)
    }

    // MARK: the dispatcher and the runners

    /// A destination that takes every event at once and records what it was sent.
    struct Recorder: Destination {
        let sent = Locked<[QueuedEvent]>([])
        var name: String { "recorder" }
        var identity: String { "recorder test" }
        var queue: QueuePolicy { QueuePolicy() }
        func send(_ event: QueuedEvent) -> DeliveryReceipt {
            sent.withLock { $0.append(event) }
            return DeliveryReceipt(.delivered())
        }
    }

    /// Waits (up to 5 s, every 10 ms) until `recorder` was sent `count` events; returns them.
    func waitForSent(_ recorder: Recorder, count: Int) async throws -> [QueuedEvent] {
        for _ in 0..<500 where recorder.sent.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
        return recorder.sent.withLock { $0 }
    }

    /// A dispatcher on a journal with the recorder's runner, fed by a broadcaster on a manual clock:
    /// the parts as `SharePipeline` builds them for livelocd and `liveloc share`.
    struct Rig {
        let journal: Journal
        let recorder = Recorder()
        let runner: DestinationRunner
        let dispatcher: ShareDispatcher
        let clock = ManualClock(now: ShareDispatcherTests.start)
        let broadcaster: LiveLocationBroadcaster
        let handedOn = Locked<[(seqs: [Int], at: ContinuousClock.Instant)]>([])

        init(syncDelay: Duration?) async throws {
            var plan = SharePipeline.Plan(clock: clock, log: .silent)
            plan.destinations = [recorder]
            plan.journal = .init(directory: try Paths.temporaryDirectory("dispatcher").path, syncDelay: syncDelay)
            let handedOn = handedOn
            plan.onEvents = { _, events in handedOn.withLock { $0.append((events.map(\.seq), .now)) } }
            let pipeline = try await SharePipeline(plan)
            (journal, runner, dispatcher, broadcaster) = (try #require(pipeline.journal), pipeline.runners[0], pipeline.dispatcher, pipeline.broadcaster)
        }

        func fix(_ second: Int) async {
            clock.advance(to: ShareDispatcherTests.start + .seconds(second))
            await broadcaster.accept(Fix(time: ShareDispatcherTests.start + .seconds(second), latitude: 48 + Double(second) * 1e-4,
                                         longitude: 11.5, mode: .threeDimensional))
        }
    }

    @Test func updatesHeldAreCommittedAndHandedOnAtTheirDeadlineWithNoBatchAfterThem() async throws {
        let rig = try await Rig(syncDelay: .milliseconds(400))
        let loop = Task { await rig.dispatcher.run(rig.broadcaster.batches) }
        let delivery = Task { try await rig.runner.run() }
        let input = await rig.broadcaster.start(.fifteenMinutes).input
        try await rig.dispatcher.waitUntilCommitted(input)
        let before = ContinuousClock.now
        await rig.fix(1)
        let sent = try await waitForSent(rig.recorder, count: 1)
        let waited = ContinuousClock.now - before
        #expect(sent.map(\.event.seq) == [1])
        #expect(waited >= .milliseconds(350), "sent after \(waited): it did not wait for the sync delay")
        #expect(waited < .seconds(20), "sent after \(waited)")  // a bound (a loaded machine is slow), not a figure
        #expect(rig.handedOn.withLock { $0.map(\.seqs) } == [[1]])
        await rig.broadcaster.finish()
        await loop.value
        delivery.cancel()
        _ = try? await delivery.value
        await rig.journal.close()
    }

    /// Before, the loop left a held update to the deadline's timer: a caller waiting for it waited
    /// for the whole delay (here 5 min, ten times its timeout).
    @Test func aCallerWaitingForAHeldInputIsAnsweredWithoutWaitingForTheDeadline() async throws {
        let rig = try await Rig(syncDelay: .seconds(300))
        let loop = Task { await rig.dispatcher.run(rig.broadcaster.batches) }
        try await rig.dispatcher.waitUntilCommitted(await rig.broadcaster.start(.fifteenMinutes).input)
        await rig.fix(1)
        await rig.fix(2)
        let extended = await rig.broadcaster.extend(by: .fifteenMinutes).input
        try await rig.dispatcher.waitUntilCommitted(extended, timeout: .seconds(30))
        #expect(rig.handedOn.withLock { $0.flatMap(\.seqs) } == [1, 2, 3])
        await rig.broadcaster.finish()
        await loop.value
        await rig.journal.close()
    }

    @Test func whatIsHeldWhenTheBroadcasterFinishesIsCommittedAndHandedOnInOrder() async throws {
        let rig = try await Rig(syncDelay: .seconds(30))
        let loop = Task { await rig.dispatcher.run(rig.broadcaster.batches) }
        let delivery = Task { try await rig.runner.run() }
        try await rig.dispatcher.waitUntilCommitted(await rig.broadcaster.start(.fifteenMinutes).input)
        for second in 1...5 { await rig.fix(second) }
        await rig.broadcaster.finish()
        await loop.value
        let sent = try await waitForSent(rig.recorder, count: 5)
        #expect(sent.map(\.event.seq) == [1, 2, 3, 4, 5])
        #expect(rig.handedOn.withLock { $0.flatMap(\.seqs) } == [1, 2, 3, 4, 5])
        delivery.cancel()
        _ = try? await delivery.value
        await rig.journal.close()
    }

    /// The hand-on, not a read: a runner that has read its queue to the end sends what it is handed
    /// and reads nothing back (here, an entry queued and not handed on stays unsent); a `wake()`
    /// makes it read.
    @Test func aCaughtUpRunnerSendsWhatItIsHandedWithoutReadingItsQueueBack() async throws {
        let rig = try await Rig(syncDelay: nil)
        let id = ShareID.random()
        // Queued before the runner runs (position 1): read at its start, as after a restart.
        try await rig.journal.commit(ShareBatch(events: [Self.update(id, 1)], share: Self.snapshot(id, seq: 1), through: 1))
        let delivery = Task { try await rig.runner.run() }
        _ = try await waitForSent(rig.recorder, count: 1)
        // Position 2, queued without a word to the runner; then position 3 handed on.
        try await rig.journal.commit(ShareBatch(events: [Self.update(id, 2)], share: Self.snapshot(id, seq: 2), through: 2))
        rig.runner.handOn([QueuedEvent(position: 3, event: Self.update(id, 3), json: Array("{\"seq\":3}".utf8))])
        let handed = try await waitForSent(rig.recorder, count: 2)
        #expect(handed.map(\.event.seq) == [1, 3])
        #expect(handed.last?.json == Array("{\"seq\":3}".utf8))
        // A commit it is only woken for is read back, after what it sent: positions 3 (taken by
        // the one handed on) and 4 are queued, 4 is sent.
        try await rig.journal.commit(ShareBatch(events: [Self.update(id, 4), Self.update(id, 5)], share: Self.snapshot(id, seq: 5),
                                                through: 3))
        rig.runner.wake()
        let read = try await waitForSent(rig.recorder, count: 3)
        #expect(read.map(\.event.seq) == [1, 3, 5])
        delivery.cancel()
        _ = try? await delivery.value
        await rig.journal.close()
    }

    /// More handed on than the runner keeps (a long outage): it lets them go and reads its queue.
    @Test func aRunnerHandedMoreThanItKeepsReadsItsQueueInstead() async throws {
        let rig = try await Rig(syncDelay: nil)
        let id = ShareID.random()
        // Queued before the runner runs: it reads them at its start, as after a restart.
        try await rig.journal.commit(ShareBatch(events: [Self.update(id, 1)], share: Self.snapshot(id, seq: 1), through: 1))
        let fabricated = (0...DestinationRunner.handedLimit).map {
            QueuedEvent(position: 1_000 + Int64($0), event: Self.update(id, 1_000 + $0), json: [])
        }
        rig.runner.handOn(fabricated)
        try await rig.journal.commit(ShareBatch(events: [Self.update(id, 2)], share: Self.snapshot(id, seq: 2), through: 2))
        let delivery = Task { try await rig.runner.run() }
        let sent = try await waitForSent(rig.recorder, count: 2)
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.map(\.event.seq) == [1, 2])
        #expect(rig.recorder.sent.withLock { $0.count } == 2)
        delivery.cancel()
        _ = try? await delivery.value
        await rig.journal.close()
    }
}
