#if canImport(Glibc)
import Glibc
#endif
import Delivery
@testable import Journal
import LiveLocation
import Locking
import SystemIO
import Testing
import TestSupport

/// The journal as the pipeline uses it: commit batches, read a destination's queue in order,
/// acknowledge, reopen.
@Suite struct JournalTests: ShareSamples {
    func open(_ directory: String, _ destinations: [String: QueuePolicy] = ["hook": QueuePolicy()],
              log: Logger = .silent) throws -> Journal {
        try Journal(directory: directory, destinations: destinations, log: log)
    }

    @Test func eventsAndTheShareRecordsRoundTripExactly() {
        let id = ShareID(rawValue: "share-1")
        let events: [ShareEvent] = [
            update(id, 1),
            .updated(shareID: id, seq: 2, location: LiveLocation(latitude: -33.9, longitude: 151.2, lastUpdateAt: start,
                                                                 startedAt: start, expiresAt: start, isActive: false)),
            .ended(shareID: id, seq: 3, reason: .sourceEnded),
            .updated(shareID: id, seq: 4, location: LiveLocation(latitude: 1, longitude: 2, lastUpdateAt: start, startedAt: start,
                                                                 expiresAt: start, isActive: true, hdop: 0.9,
                                                                 battery: BatteryReading(level: 100, status: .full))),
            .updated(shareID: id, seq: 5, location: LiveLocation(latitude: 1, longitude: 2, lastUpdateAt: start, startedAt: start,
                                                                 expiresAt: start, isActive: true,
                                                                 battery: BatteryReading(level: 0, status: .unknown))),
        ]
        for event in events { #expect(BinaryRecord.decodeEvent(BinaryRecord.encode(event)) == event) }
        // A row written before hdop and the battery were kept has no tail, and reads as before.
        let withoutTail = BinaryRecord.encode(update(id, 1))
        let withTail = BinaryRecord.encode(events[3])
        #expect(withTail.count > withoutTail.count)
        #expect(BinaryRecord.decodeEvent(withoutTail) == update(id, 1))
        let fix = Fix(time: start, latitude: 1.5, longitude: 2.5, altitudeMSLMeters: 10, speedMetersPerSecond: 3,
                      horizontalAccuracyMeters: 4, satellitesUsed: 9)
        let other = Fix(time: start + .seconds(1), latitude: 1.6, longitude: 2.6, mode: .twoDimensional)
        for (last, sent) in [(nil, nil), (fix, fix), (other, fix), (fix, nil)] as [(Fix?, Fix?)] {
            let share = ShareSnapshot(id: id, startedAt: start, expiresAt: start + .seconds(900), lastFix: last,
                                      lastSentFix: sent, seq: 7, updatesSent: 6)
            #expect(BinaryRecord.decodeShare(BinaryRecord.encode(share)) == share)
        }
        #expect(BinaryRecord.decodeEvent([1, 9, 9]) == nil)
        #expect(BinaryRecord.decodeShare(Array(BinaryRecord.encode(ShareSnapshot(id: id, startedAt: start, expiresAt: start)).dropLast())) == nil)
    }

    @Test func theSharesTimeBaseTravelsWithItsStateAndARecordWithoutItReadsAsBefore() async throws {
        let id = ShareID(rawValue: "share-1")
        let boot = BootID("01fa95bd-fc4a-4583-be7b-f77585edea41")
        #expect(boot?.description == "01fa95bd-fc4a-4583-be7b-f77585edea41")
        let old = ShareSnapshot(id: id, startedAt: start, expiresAt: start + .seconds(900), seq: 7, updatesSent: 6)
        let oldBytes = BinaryRecord.encode(old)
        for base in [ShareTimeBase(source: .receiver, bootID: boot, bootedAt: start - .seconds(42)),
                     ShareTimeBase(source: .systemClock, bootID: nil, bootedAt: Timestamp(millisecondsSince1970: -5))] {
            var share = old
            share.timeBase = base
            let bytes = BinaryRecord.encode(share)
            #expect(Array(bytes.prefix(oldBytes.count)) == oldBytes, "the base is a tail after the record as it was")
            #expect(BinaryRecord.decodeShare(bytes) == share)
            #expect(BinaryRecord.decodeShare(Array(bytes.dropLast())) == nil)
        }
        // A record written before the base was kept reads without one (resumed as then).
        #expect(BinaryRecord.decodeShare(oldBytes) == old)
        #expect(BinaryRecord.decodeShare(oldBytes)?.timeBase == nil)

        let directory = try Paths.temporaryDirectory("journal").path
        var share = old
        share.timeBase = ShareTimeBase(source: .receiver, bootID: boot, bootedAt: start - .seconds(42))
        let journal = try open(directory)
        try await journal.commit(ShareBatch(events: [update(id, 8)], share: share, through: 1))
        await journal.close()
        let reopened = try open(directory)
        #expect(await reopened.activeShare == share)
        await reopened.close()
    }

    @Test func committedEventsAreQueuedInOrderAndLeaveOnlyWhenAcknowledged() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let id = ShareID.random()
        let journal = try open(directory)
        try await journal.commit(ShareBatch(events: [update(id, 1), update(id, 2)], share: nil, through: 1))
        try await journal.commit(ShareBatch(events: [update(id, 3)], share: nil, through: 2))
        let queued = try await journal.pending("hook", after: 0, limit: 10)
        #expect(queued.map(\.event.seq) == [1, 2, 3])
        #expect(queued.map(\.json) == queued.map { Array($0.event.jsonLineBytes.dropLast()) })
        #expect(queued[0].idempotencyKey == "evt_\(id.rawValue)_1")
        journal.acknowledge("hook", position: queued[0].position)
        #expect(try await journal.pending("hook", after: 0, limit: 10).map(\.event.seq) == [2, 3])
        await journal.close()

        let reopened = try open(directory)
        #expect(try await reopened.pending("hook", after: 0, limit: 10).map(\.event.seq) == [2, 3])
        await reopened.close()
    }

    /// A commit that grows the WAL makes its fsync wait for ext4's own journal too: the WAL is
    /// written to its working size at open, never grows past it while SQLite checkpoints every
    /// 1,000 frames and starts it over; a journal opened again gets it back (SQLite removes the WAL
    /// at a clean close).
    @Test func theWALHasItsWorkingSizeFromTheStartAndKeepsItAcrossCheckpoints() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let wal = directory + "/journal.sqlite-wal"
        func walSize() throws -> Int64 { try FileStatus(path: wal).size }
        let id = ShareID.random()
        let journal = try open(directory)
        #expect(try walSize() == WriteAheadLogFile.workingSize)
        // Each commit writes a few frames (share, events, queue): 400 commits pass 1,000 frames.
        for seq in 1...400 {
            try await journal.commit(ShareBatch(events: [update(id, seq)], share: nil, through: UInt64(seq)))
            let size = try walSize()
            #expect(size == WriteAheadLogFile.workingSize, "after commit \(seq): \(size) bytes")
            if size != WriteAheadLogFile.workingSize { break }
        }
        await journal.close()

        let reopened = try open(directory)
        #expect(try await reopened.pending("hook", after: 0, limit: 500).map(\.event.seq) == Array(1...400))
        #expect(try walSize() == WriteAheadLogFile.workingSize)
        await reopened.close()
    }

    @Test func theShareStateTravelsWithItsBatchAndIsThereAfterReopening() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let share = ShareSnapshot(id: .random(), startedAt: start, expiresAt: start + .seconds(3600), seq: 4, updatesSent: 4)
        let journal = try open(directory)
        try await journal.commit(ShareBatch(events: [], share: share, through: 1))
        await journal.close()
        let reopened = try open(directory)
        #expect(await reopened.activeShare == share)
        try await reopened.commit(ShareBatch(events: [.ended(shareID: share.id, seq: 5, reason: .stopped)], share: nil, through: 2))
        await reopened.close()
        let again = try open(directory)
        #expect(await again.activeShare == nil)
        await again.close()
    }

    @Test func theLatestPolicyKeepsOnlyTheNewestUpdateAndEveryFinalEvent() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let id = ShareID.random()
        let journal = try open(directory, ["hook": QueuePolicy(backlog: .latest)])
        for seq in 1...5 { try await journal.commit(ShareBatch(events: [update(id, seq)], share: nil, through: UInt64(seq))) }
        #expect(try await journal.pending("hook", after: 0, limit: 10).map(\.event.seq) == [5])
        try await journal.commit(ShareBatch(events: [update(id, 6, active: false), .ended(shareID: id, seq: 7, reason: .stopped)],
                                            share: nil, through: 6))
        #expect(try await journal.pending("hook", after: 0, limit: 10).map(\.event.seq) == [6, 7])
        #expect(await journal.queueStatus("hook")?.dropped == 5)
        await journal.close()
    }

    @Test func overItsBoundAQueueDropsItsOldestUpdatesButNoFinalEvent() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let id = ShareID.random()
        let journal = try open(directory, ["hook": QueuePolicy(maxEvents: 3), "other": QueuePolicy()])
        let events = (1...5).map { update(id, $0) } + [update(id, 6, active: false), .ended(shareID: id, seq: 7, reason: .expired)]
        try await journal.commit(ShareBatch(events: events, share: nil, through: 1))
        #expect(try await journal.pending("hook", after: 0, limit: 10).map(\.event.seq) == [5, 6, 7])
        #expect(try await journal.pending("other", after: 0, limit: 10).map(\.event.seq) == Array(1...7))
        await journal.close()
    }

    @Test func aDestinationsStateIsKeptWithItsAcknowledgement() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let id = ShareID.random()
        let journal = try open(directory)
        try await journal.commit(ShareBatch(events: [update(id, 1), update(id, 2)], share: nil, through: 1))
        let first = try await journal.pending("hook", after: 0, limit: 1)[0]
        #expect(first.destinationState == nil)
        journal.acknowledge("hook", position: first.position, state: Array("message 42".utf8))
        await journal.close()
        let reopened = try open(directory)
        #expect(try await reopened.pending("hook", after: 0, limit: 1).first?.destinationState == Array("message 42".utf8))
        await reopened.close()
    }

    /// Issue 24: a queue belongs to one receiver. Run A queues for receiver A; run B, with the same
    /// state directory and another receiver of the same kind, gets none of A's events; A's events
    /// stay, are reported, and go to A when A is configured again.
    @Test func eventsQueuedForOneReceiverNeverReachAnotherOfTheSameKind() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let receiverA = "webhook http://127.0.0.1:1/a", receiverB = "webhook http://127.0.0.1:2/b"
        let share = ShareID.random()
        let first = try open(directory, [receiverA: QueuePolicy()])
        try await first.commit(ShareBatch(events: [update(share, 1), update(share, 2)], share: nil, through: 1))
        await first.close()

        let lines = LogLines()
        let second = try open(directory, [receiverB: QueuePolicy()], log: lines.logger)
        #expect(try await second.pending(receiverB, after: 0, limit: 10).isEmpty)
        #expect(try await second.pending(receiverA, after: 0, limit: 10).isEmpty, "a leftover queue is not read through another run")
        #expect(await second.leftoverQueues == [LeftoverQueue(identity: receiverA, events: 2)])
        #expect(lines.all.contains { $0.contains("2 event(s) for \(receiverA) wait in the journal") })
        let other = ShareID.random()
        try await second.commit(ShareBatch(events: [update(other, 1)], share: nil, through: 2))
        let forB = try await second.pending(receiverB, after: 0, limit: 10)
        #expect(forB.map(\.event.shareID) == [other])
        second.acknowledge(receiverB, position: forB[0].position)
        await second.close()  // collects acknowledged events: A's must survive it

        let third = try open(directory, [receiverA: QueuePolicy()])
        #expect(await third.leftoverQueues.isEmpty)
        #expect(try await third.pending(receiverA, after: 0, limit: 10).map(\.event) == [update(share, 1), update(share, 2)])
        await third.close()
    }

    /// A run killed with its share open leaves it in the journal; the next run ends it. That end
    /// (the final update with the share's last position, and `ended`) belongs to the share's own
    /// receivers: queued for them as leftovers, never for the receiver the next run was given.
    @Test func aResumedSharesEndGoesToTheReceiversItStartedWithOnly() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let receiverA = "telegram bot 1 chat 100", receiverB = "telegram bot 1 chat 200"
        let old = ShareSnapshot(id: .random(), startedAt: start, expiresAt: start + .seconds(3600), seq: 1, updatesSent: 1)
        let first = try open(directory, [receiverA: QueuePolicy()])
        try await first.commit(ShareBatch(events: [update(old.id, 1)], share: old, through: 1))
        await first.close()  // as if killed: the share is still open

        let second = try open(directory, [receiverB: QueuePolicy()])
        #expect(await second.activeShare == old)
        let new = ShareSnapshot(id: .random(), startedAt: start, expiresAt: start + .seconds(900), seq: 1, updatesSent: 1)
        try await second.commit(ShareBatch(events: [update(old.id, 2, active: false), .ended(shareID: old.id, seq: 3, reason: .superseded),
                                                    update(new.id, 1)], share: new, through: 2))
        #expect(try await second.pending(receiverB, after: 0, limit: 10).map(\.event.shareID) == [new.id])
        #expect(await second.leftoverQueues == [LeftoverQueue(identity: receiverA, events: 3)])
        await second.close()
        let third = try open(directory, [receiverA: QueuePolicy()])
        #expect(try await third.pending(receiverA, after: 0, limit: 10).map(\.event.seq) == [1, 2, 3])
        #expect(try await third.pending(receiverA, after: 0, limit: 10).allSatisfy { $0.event.shareID == old.id })
        await third.close()
    }

    @Test func leftoversAreRemovedOnlyWhenDiscardIsAskedFor() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let first = try open(directory, ["traccar http://127.0.0.1:1 device a": QueuePolicy()])
        try await first.commit(ShareBatch(events: [update(.random(), 1)], share: nil, through: 1))
        await first.close()
        let lines = LogLines()
        let second = try Journal(directory: directory, destinations: ["traccar http://127.0.0.1:1 device b": QueuePolicy()],
                                 leftovers: .discard, log: lines.logger)
        #expect(await second.leftoverQueues.isEmpty)
        #expect(lines.all.contains { $0.contains("discarded 1 event(s) queued for traccar http://127.0.0.1:1 device a") })
        await second.close()
        let third = try open(directory, ["traccar http://127.0.0.1:1 device a": QueuePolicy()])
        #expect(try await third.pending("traccar http://127.0.0.1:1 device a", after: 0, limit: 10).isEmpty)
        await third.close()
    }

    @Test func redirectHandsLeftoversToTheOneDestinationOfTheirKindAndNoOther() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let old = "mqtt mqtt://127.0.0.1:1883 prefix p device old format livelocd"
        let new = "mqtt mqtt://127.0.0.1:1883 prefix p device new format livelocd"
        let hook = "webhook http://127.0.0.1:1/a"
        let share = ShareID.random()
        let first = try open(directory, [old: QueuePolicy()])
        try await first.commit(ShareBatch(events: [update(share, 1), update(share, 2)], share: nil, through: 1))
        first.acknowledge(old, position: 1, state: Array("old receiver's state".utf8))
        await first.close()
        let second = try Journal(directory: directory, destinations: [new: QueuePolicy(), hook: QueuePolicy()],
                                 leftovers: .redirect, log: .silent)
        #expect(try await second.pending(new, after: 0, limit: 10).map(\.event.seq) == [2])
        #expect(try await second.pending(new, after: 0, limit: 10).first?.destinationState == nil)
        #expect(try await second.pending(hook, after: 0, limit: 10).isEmpty, "only a destination of the same kind takes them")
        #expect(await second.leftoverQueues.isEmpty)
        await second.close()
    }

    @Test func aQueueAnEarlierVersionMadeIsALeftoverWhoseReceiverIsUnknown() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let first = try open(directory, ["webhook": QueuePolicy()])  // the name an earlier version used
        try await first.commit(ShareBatch(events: [update(.random(), 1)], share: nil, through: 1))
        await first.close()
        let second = try open(directory, ["webhook http://127.0.0.1:2/b": QueuePolicy()])
        #expect(try await second.pending("webhook http://127.0.0.1:2/b", after: 0, limit: 10).isEmpty)
        #expect(await second.leftoverQueues.map(\.description) == [
            "1 event(s) for webhook (queued by an earlier version; its receiver was not recorded) wait in the journal",
        ])
        await second.close()
    }

    @Test func aSecondProcessCannotOpenAJournalInUse() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let journal = try open(directory)
        #expect(throws: JournalError.inUse(directory: directory, holder: getpid())) { _ = try open(directory) }
        #expect("\(JournalError.inUse(directory: directory, holder: 42))".contains("state directory \(directory) is in use by process 42"))
        await journal.close()
        let again = try open(directory)  // closing released the lock
        await again.close()
    }
}
