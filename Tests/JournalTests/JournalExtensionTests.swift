import Delivery
import Journal
import LiveLocation
import Testing
import TestSupport

/// An extension reaches the journal as the broadcaster hands it on: the new end with the update
/// that carries it, in one batch, there after reopening.
@Suite struct JournalExtensionTests {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    @Test func anExtensionsBatchLeavesTheNewEndAndItsUpdateInTheJournalAfterReopening() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let journal = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        let clock = ManualClock(now: start)
        let broadcaster = LiveLocationBroadcaster(clock: clock)
        var batches = broadcaster.batches.makeAsyncIterator()
        let share = await broadcaster.start(.fifteenMinutes).share
        clock.advance(to: start + .seconds(840))
        await broadcaster.accept(Fix(time: start + .seconds(840), latitude: 48.1, longitude: 11.5, mode: .threeDimensional))
        let input = await broadcaster.extend(by: .fifteenMinutes).input
        // Everything emitted so far, committed as the dispatcher does: batch by batch.
        var through: UInt64 = 0
        while through < input, let batch = await batches.next() {
            try await journal.commit(batch)
            through = batch.through
        }
        await journal.close()
        // Its share is still active: its expiry timer, asleep on the manual clock, ends with it.
        await broadcaster.finish()

        let reopened = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        let kept = await reopened.activeShare
        #expect(kept?.id == share.id)
        #expect(kept?.expiresAt == start + .seconds(1800))
        #expect(kept?.startedAt == start)
        #expect(kept?.seq == 2)
        let queued = try await reopened.pending("hook", after: 0, limit: 10).map(\.event)
        #expect(queued.map(\.seq) == [1, 2])
        guard case .updated(_, _, let location) = queued.last else { Issue.record("\(queued)"); return }
        #expect(location.expiresAt == start + .seconds(1800))
        #expect(location.isActive)
        await reopened.close()
    }
}
