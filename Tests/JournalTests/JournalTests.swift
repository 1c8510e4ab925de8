import Delivery
@testable import Journal
import LiveLocation
import Synchronization
import Testing
import TestSupport

/// The journal as the pipeline uses it: commit batches, read a destination's queue in order,
/// acknowledge, reopen.
@Suite struct JournalTests {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    func update(_ id: ShareID, _ seq: Int, active: Bool = true) -> ShareEvent {
        .updated(shareID: id, seq: seq, location: LiveLocation(
            latitude: 48.1 + Double(seq) * 1e-4, longitude: 11.5, lastUpdateAt: start + .seconds(seq), startedAt: start,
            expiresAt: start + .seconds(active ? 3600 : seq), isActive: active, accuracyMeters: 3.5))
    }

    func open(_ directory: String, _ destinations: [String: QueuePolicy] = ["hook": QueuePolicy()],
              log: @escaping @Sendable (String) -> Void = { _ in }) throws -> Journal {
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

    @Test func aQueueOfADestinationNoLongerConfiguredIsDroppedAndSaidSo() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let journal = try open(directory, ["gone": QueuePolicy()])
        try await journal.commit(ShareBatch(events: [update(.random(), 1)], share: nil, through: 1))
        await journal.close()
        let lines = Mutex<[String]>([])
        let reopened = try open(directory, ["hook": QueuePolicy()], log: { line in lines.withLock { $0.append(line) } })
        #expect(lines.withLock { $0 }.contains { $0.contains("gone is no longer configured") && $0.contains("1 undelivered") })
        #expect(try await reopened.pending("hook", after: 0, limit: 10).isEmpty)
        await reopened.close()
    }

    @Test func aSecondProcessCannotOpenAJournalInUse() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let journal = try open(directory)
        #expect(throws: JournalError.self) { _ = try open(directory) }
        await journal.close()
    }
}
