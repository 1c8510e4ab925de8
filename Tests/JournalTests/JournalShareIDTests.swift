import Delivery
import Foundation
import Journal
import LiveLocation
import Locking
import Testing
import TestSupport

/// Issue 29, item 1: an event id `evt_<share>_<seq>` must name one content forever, so a share id
/// the journal has seen never starts another share: not in the same run, not after a reopen, not
/// once the track retention removed the share's fixes, not in a journal an earlier version made.
@Suite struct JournalShareIDTests {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)
    let trip = ShareID(rawValue: "trip-42")

    func snapshot(_ id: ShareID) -> ShareSnapshot {
        ShareSnapshot(id: id, startedAt: start, expiresAt: start + .seconds(900))
    }

    func update(_ id: ShareID, _ seq: Int) -> ShareEvent {
        .updated(shareID: id, seq: seq, location: LiveLocation(
            latitude: 48.1, longitude: 11.5, lastUpdateAt: start + .seconds(seq), startedAt: start,
            expiresAt: start + .seconds(900), isActive: true))
    }

    @Test func aShareIDIsTakenOnceAndRefusedAgainInTheSameRunAndAfterReopening() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let journal = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        #expect(try await journal.takeShareID(trip))
        #expect(try await !journal.takeShareID(trip), "taken, not yet committed: a second start with it must not pass")
        try await journal.commit(ShareBatch(events: [], share: snapshot(trip), through: 1))
        try await journal.commit(ShareBatch(events: [update(trip, 1), .ended(shareID: trip, seq: 2, reason: .stopped)], share: nil, through: 2))
        #expect(try await !journal.takeShareID(trip), "ended in this run")
        await journal.close()

        let reopened = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        #expect(try await !reopened.takeShareID(trip), "ended before the restart")
        #expect(try await reopened.takeShareID(ShareID(rawValue: "trip-43")))
        await reopened.close()
    }

    @Test func theOpenShareAfterARestartAndAShareEndedWithinItsFirstBatchAreUsedToo() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let open = ShareID(rawValue: "open-1"), instant = ShareID(rawValue: "instant-1")
        let journal = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        // Started with the source already ended: its final update and `ended` in its first batch, never the open share.
        try await journal.commit(ShareBatch(events: [update(instant, 1), .ended(shareID: instant, seq: 2, reason: .sourceEnded)],
                                            share: nil, through: 1))
        try await journal.commit(ShareBatch(events: [update(open, 1)], share: snapshot(open), through: 2))
        await journal.close()  // as if killed: the share stays open

        let reopened = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        #expect(try await !reopened.takeShareID(open))
        #expect(try await !reopened.takeShareID(instant))
        await reopened.close()
    }

    /// The track retention removes old shares' fixes (and their row in `track_shares`): the ids
    /// used stay used.
    @Test func theIDsUsedOutliveTheTrackRetention() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let clock = Locked(start)
        let open = { (retention: Duration) throws -> Journal in
            try Journal(directory: directory, destinations: [:], trackRetention: retention, now: { clock.withLock { $0 } }, log: .silent)
        }
        let fix = Fix(time: start, latitude: 48.1, longitude: 11.5, mode: .threeDimensional)
        let journal = try open(.seconds(3600))
        try await journal.commit(ShareBatch(events: [update(trip, 1)], share: snapshot(trip), through: 1,
                                            fixes: [TrackedFix(shareID: trip, fix: fix)]))
        try await journal.commit(ShareBatch(events: [.ended(shareID: trip, seq: 2, reason: .stopped)], share: nil, through: 2))
        #expect(try await journal.track(trip, after: 0, limit: 10) != nil)
        await journal.close()

        clock.withLock { $0 = $0 + .seconds(2 * 86_400) }
        let reopened = try open(.seconds(3600))
        #expect(try await reopened.track(trip, after: 0, limit: 10) == nil, "the track is past its retention")
        #expect(try await !reopened.takeShareID(trip))
        await reopened.close()
    }

    /// A journal from before the `share_ids` table: the ids it still names (queued events, kept
    /// tracks, the open share) are used from the first open on.
    @Test func aJournalOfAnEarlierVersionKnowsTheIDsItStillNames() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let queued = ShareID(rawValue: "queued-1"), open = ShareID(rawValue: "open-1")
        let journal = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        try await journal.commit(ShareBatch(events: [update(queued, 1), .ended(shareID: queued, seq: 2, reason: .stopped)],
                                            share: nil, through: 1))
        try await journal.commit(ShareBatch(events: [], share: snapshot(open), through: 2))
        await journal.close()
        let dropped = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1]); db.execute("DROP TABLE share_ids"); db.commit()
            """, directory + "/journal.sqlite"])
        #expect(dropped.status == 0, "\(dropped.stderr)")

        let reopened = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        #expect(try await !reopened.takeShareID(queued))
        #expect(try await !reopened.takeShareID(open))
        await reopened.close()
    }

    /// A damaged journal is moved aside and what can be read is kept in a new one: `share_ids` is
    /// copied like every table, so a share delivered long ago (nothing else names it) stays used.
    @Test func theIDsUsedSurviveASalvage() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let path = directory + "/journal.sqlite"
        let journal = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        try await journal.commit(ShareBatch(events: [update(trip, 1)], share: snapshot(trip), through: 1))
        try await journal.commit(ShareBatch(events: [.ended(shareID: trip, seq: 2, reason: .stopped)], share: nil, through: 2))
        for event in try await journal.pending("hook", after: 0, limit: 10) { journal.acknowledge("hook", position: event.position) }
        await journal.close()  // delivered: its queue is empty, no track kept
        let damaged = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            assert db.execute("SELECT count(*) FROM queue").fetchone()[0] == 0
            page = db.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'meta'").fetchone()[0]
            db.close()
            with open(sys.argv[1], "r+b") as f:
                f.seek((page - 1) * 512); f.write(b"\\xa5" * 512)
            """, path])
        #expect(damaged.status == 0, "\(damaged.stderr)")

        let lines = LogLines()
        let reopened = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: lines.logger)
        #expect(lines.all.contains { $0.contains("is damaged") }, "\(lines.all)")
        #expect(try await !reopened.takeShareID(trip))
        await reopened.close()
    }
}

