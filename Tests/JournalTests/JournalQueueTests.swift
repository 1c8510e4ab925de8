import Delivery
import Journal
import LiveLocation
import Testing
import TestSupport

/// Regressions found by the Telegram and Traccar destinations.
@Suite("Journal queues")
struct JournalQueueTests {
    static let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    static func update(_ id: ShareID, _ seq: Int) -> ShareEvent {
        .updated(shareID: id, seq: seq, location: LiveLocation(
            latitude: 48 + Double(seq) / 1000, longitude: 11, lastUpdateAt: start + .seconds(seq), startedAt: start,
            expiresAt: start + .seconds(900), isActive: true))
    }

    @Test func positionsKeepIncreasingAfterEveryQueueWasEmptied() async throws {
        let directory = try Paths.temporaryDirectory("journal").appendingPathComponent("state").path
        let journal = try Journal(directory: directory, destinations: ["a": QueuePolicy()], log: { _ in })
        let id = ShareID.random()
        // Enough acknowledgements for the journal to collect its events table, all while the queue is empty.
        try await journal.commit(ShareBatch(events: (1...300).map { Self.update(id, $0) }, share: nil, through: 1))
        let first = try await journal.pending("a", after: 0, limit: 1000)
        for event in first { await journal.acknowledge("a", position: event.position) }
        try await journal.flush()
        try await journal.commit(ShareBatch(events: [Self.update(id, 301)], share: nil, through: 2))
        let cursor = try #require(first.last?.position)
        // A runner's cursor stands after the last event it sent: the new event must come after it.
        let next = try await journal.pending("a", after: cursor, limit: 10)
        await journal.close()
        #expect(first.count == 300)
        #expect(next.map(\.event.seq) == [301])
    }

    @Test func acknowledgementsCommittedWithABatchCountInPending() async throws {
        let directory = try Paths.temporaryDirectory("journal").appendingPathComponent("state").path
        let journal = try Journal(directory: directory, destinations: ["a": QueuePolicy()], log: { _ in })
        let id = ShareID.random()
        try await journal.commit(ShareBatch(events: [Self.update(id, 1)], share: nil, through: 1))
        let sent = try await journal.pending("a", after: 0, limit: 10)
        await journal.acknowledge("a", position: try #require(sent.first).position)
        try await journal.commit(ShareBatch(events: [Self.update(id, 2)], share: nil, through: 2))  // carries the ack
        let status = await journal.queueStatus("a")
        await journal.close()
        #expect(status?.pending == 1)
        #expect(status?.acknowledged == 1)
    }
}
