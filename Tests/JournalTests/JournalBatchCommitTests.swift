import Delivery
import Journal
import LiveLocation
import Locking
import Testing
import TestSupport

/// Several batches in one transaction (livelocd's `journal.sync_delay`: the dispatcher holds updates
/// in memory, then commits them together): the journal ends as if they had been committed one by one.
@Suite("Journal: several batches in one commit")
struct JournalBatchCommitTests: ShareSamples {
    static let destinations = ["a": QueuePolicy(), "b": QueuePolicy(backlog: .latest)]

    static func fix(_ second: Int) -> Fix {
        Fix(time: start + .seconds(second), latitude: 48 + Double(second) * 1e-4, longitude: 11.5, mode: .threeDimensional)
    }

    /// A share's life in batches: its start, updates (with fixes for its track), its end together
    /// with the next share's start, and that one's first update.
    static func life(_ first: ShareID, _ second: ShareID) -> [ShareBatch] {
        [ShareBatch(events: [], share: snapshot(first, seq: 0), through: 1),
         ShareBatch(events: [update(first, 1)], share: snapshot(first, seq: 1), through: 2,
                    fixes: [TrackedFix(shareID: first, fix: fix(1))]),
         ShareBatch(events: [update(first, 2), update(first, 3)], share: snapshot(first, seq: 3), through: 3,
                    fixes: [TrackedFix(shareID: first, fix: fix(2)), TrackedFix(shareID: first, fix: fix(3))]),
         ShareBatch(events: [update(first, 4, active: false), .ended(shareID: first, seq: 5, reason: .stopped)],
                    share: snapshot(second, seq: 0), through: 4),
         ShareBatch(events: [update(second, 1)], share: snapshot(second, seq: 1), through: 5,
                    fixes: [TrackedFix(shareID: second, fix: fix(4))])]
    }

    /// What a journal holds, as the daemon reads it.
    struct Contents: Equatable {
        var share: ShareSnapshot?
        var a: [ShareEvent]
        var b: [ShareEvent]
        var firstTrack: [Fix]?
        var lastTrack: [Fix]?
    }

    func open(_ directory: String) throws -> Journal {
        try Journal(directory: directory, destinations: Self.destinations, trackRetention: .seconds(86_400), log: .silent)
    }

    func contents(of journal: Journal, first: ShareID) async throws -> Contents {
        Contents(share: await journal.activeShare,
                 a: try await journal.pending("a", after: 0, limit: 100).map(\.event),
                 b: try await journal.pending("b", after: 0, limit: 100).map(\.event),
                 firstTrack: try await journal.track(first, after: 0, limit: 100)?.fixes,
                 lastTrack: try await journal.track(nil, after: 0, limit: 100)?.fixes)
    }

    @Test func batchesCommittedTogetherLeaveTheJournalAsIfCommittedOneByOne() async throws {
        let (first, second) = (ShareID.random(), ShareID.random())
        let oneByOne = try open(try Paths.temporaryDirectory("journal-one-by-one").path)
        for batch in Self.life(first, second) { try await oneByOne.commit(batch) }
        let expected = try await contents(of: oneByOne, first: first)
        await oneByOne.close()

        let directory = try Paths.temporaryDirectory("journal-together").path
        let together = try open(directory)
        try await together.commit(Self.life(first, second))
        let committed = try await contents(of: together, first: first)
        await together.close()
        let reopened = try open(directory)
        let afterRestart = try await contents(of: reopened, first: first)
        await reopened.close()

        #expect(committed == expected)
        #expect(afterRestart == expected)
        // What the comparison rests on: both shares' events, the `latest` queue's newest update of
        // the open share only, both tracks in the order accepted.
        #expect(expected.share == Self.snapshot(second, seq: 1))
        #expect(expected.a.map(\.seq) == [1, 2, 3, 4, 5, 1])
        #expect(expected.b.map(\.seq) == [4, 5, 1])
        #expect(expected.firstTrack == [Self.fix(1), Self.fix(2), Self.fix(3)])
        #expect(expected.lastTrack == [Self.fix(4)])
    }

    /// The hand-on's form: a commit returns, per receiver, the entries it queued, each as `pending`
    /// reads it back (position, event, JSON), so that a runner that is caught up needs no read; a
    /// failed commit returns nothing and queues nothing.
    @Test func aCommitReturnsWhatItQueuedPerReceiverAsPendingReadsIt() async throws {
        let journal = try open(try Paths.temporaryDirectory("journal-queued").path)
        let id = ShareID.random()
        let batches = [ShareBatch(events: [Self.update(id, 1)], share: Self.snapshot(id, seq: 1), through: 1),
                       ShareBatch(events: [Self.update(id, 2), Self.update(id, 3)], share: Self.snapshot(id, seq: 3), through: 2)]
        let queued = try await journal.commit(batches)
        let pendingA = try await journal.pending("a", after: 0, limit: 10)
        let pendingB = try await journal.pending("b", after: 0, limit: 10)
        await journal.close()
        await #expect(throws: JournalError.closed) {
            _ = try await journal.commit([ShareBatch(events: [Self.update(id, 4)], share: nil, through: 3)])
        }
        #expect(queued["a"] == pendingA)
        #expect(queued["a"]?.map(\.event.seq) == [1, 2, 3])
        // `latest` drops the older updates in the same transaction: they are not handed on either.
        #expect(queued["b"] == pendingB)
        #expect(queued["b"]?.map(\.event.seq) == [3])
        #expect(Set(queued.keys) == ["a", "b"])
    }
}
