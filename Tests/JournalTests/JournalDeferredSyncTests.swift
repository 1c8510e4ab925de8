import Delivery
import Journal
import LiveLocation
import Testing
import TestSupport

/// Commits without a sync (`CommitSync.deferred`, livelocd's `journal.sync_delay`): written, but
/// handed to no destination until a synced transaction has carried them to the disk.
@Suite("Journal: deferred syncs")
struct JournalDeferredSyncTests {
    static func update(_ id: ShareID, _ seq: Int) -> ShareEvent { JournalQueueTests.update(id, seq) }

    func open() throws -> Journal {
        let directory = try Paths.temporaryDirectory("journal").appendingPathComponent("state").path
        return try Journal(directory: directory, destinations: ["a": QueuePolicy(), "b": QueuePolicy(backlog: .latest)], log: .silent)
    }

    @Test func eventsCommittedWithoutASyncAreNotPendingUntilASyncedCommitCarriesThem() async throws {
        let journal = try open()
        let id = ShareID.random()
        try await journal.commit(ShareBatch(events: [Self.update(id, 1)], share: nil, through: 1))
        try await journal.commit(ShareBatch(events: [Self.update(id, 2)], share: nil, through: 2), sync: .deferred)
        try await journal.commit(ShareBatch(events: [Self.update(id, 3)], share: nil, through: 3), sync: .deferred)
        let beforeSync = try await journal.pending("a", after: 0, limit: 10).map(\.event.seq)
        try await journal.commit(ShareBatch(events: [Self.update(id, 4)], share: nil, through: 4))
        let afterSync = try await journal.pending("a", after: 0, limit: 10).map(\.event.seq)
        await journal.close()
        #expect(beforeSync == [1])
        #expect(afterSync == [1, 2, 3, 4])
    }

    @Test func syncHandsOnWhatWasCommittedWithoutOne() async throws {
        let journal = try open()
        let id = ShareID.random()
        try await journal.commit(ShareBatch(events: [Self.update(id, 1), Self.update(id, 2)], share: nil, through: 1), sync: .deferred)
        let beforeSync = try await journal.pending("a", after: 0, limit: 10).map(\.event.seq)
        try await journal.sync()
        let afterSync = try await journal.pending("a", after: 0, limit: 10).map(\.event.seq)
        // A `latest` queue sees only its newest update, once synced.
        let latest = try await journal.pending("b", after: 0, limit: 10).map(\.event.seq)
        await journal.close()
        #expect(beforeSync.isEmpty)
        #expect(afterSync == [1, 2])
        #expect(latest == [2])
    }

    @Test func anAcknowledgementFlushSyncsTheDeferredCommitsBeforeIt() async throws {
        let journal = try open()
        let id = ShareID.random()
        try await journal.commit(ShareBatch(events: [Self.update(id, 1)], share: nil, through: 1))
        let first = try #require(try await journal.pending("a", after: 0, limit: 1).first)
        try await journal.commit(ShareBatch(events: [Self.update(id, 2)], share: nil, through: 2), sync: .deferred)
        await journal.acknowledge("a", position: first.position)
        try await journal.flush()
        let afterFlush = try await journal.pending("a", after: 0, limit: 10).map(\.event.seq)
        await journal.close()
        #expect(afterFlush == [2])
    }

    /// A clean close syncs what was committed without a sync (its checkpoint): the next run hands it on.
    @Test func aCleanCloseKeepsWhatWasCommittedWithoutASync() async throws {
        let directory = try Paths.temporaryDirectory("journal").appendingPathComponent("state").path
        let id = ShareID.random()
        do {
            let journal = try Journal(directory: directory, destinations: ["a": QueuePolicy()], log: .silent)
            try await journal.commit(ShareBatch(events: [Self.update(id, 1)], share: nil, through: 1), sync: .deferred)
            await journal.close()
        }
        let reopened = try Journal(directory: directory, destinations: ["a": QueuePolicy()], log: .silent)
        let pending = try await reopened.pending("a", after: 0, limit: 10).map(\.event.seq)
        await reopened.close()
        #expect(pending == [1])
    }
}
