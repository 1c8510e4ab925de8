import Foundation
@testable import Journal
import LiveLocation
import Locking
import Testing
import TestSupport

/// A wall clock a test moves by hand.
final class TestWallClock: Sendable {
    private let time = Locked(Timestamp(iso8601: "2026-12-01T00:00:00.000Z")!)
    var now: Timestamp { time.withLock { $0 } }
    func advance(by duration: Duration) { time.withLock { $0 = $0 + duration } }
}

@Suite struct TrackStoreTests {
    let share = ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41")
    let other = ShareID(rawValue: "1c7d4b0f-8a4f-4d2b-8e1f-3a6c9d8b7e52")

    func batch(_ id: ShareID, _ seconds: ClosedRange<Int>, through: UInt64) -> ShareBatch {
        ShareBatch(events: [], share: nil, through: through,
                   fixes: seconds.map { TrackedFix(shareID: id, fix: trackFix($0, complete: $0 % 2 == 0)) })
    }

    func journal(_ directory: URL, retention: Duration?, clock: TestWallClock) throws -> Journal {
        try Journal(directory: directory.path, destinations: [:], trackRetention: retention, now: { clock.now }, log: .silent)
    }

    @Test func aSharesTrackIsReadBackPageByPageExactlyAsCommitted() async throws {
        let directory = try Paths.temporaryDirectory("track-store")
        let clock = TestWallClock()
        let store = try journal(directory, retention: .seconds(7 * 86_400), clock: clock)
        try await store.commit(batch(share, 0...1499, through: 1))
        try await store.commit(batch(other, 0...9, through: 2))
        try await store.commit(batch(share, 1500...2499, through: 3))
        var fixes: [Fix] = []
        var after: Int64 = 0
        var pages = 0
        while pages < 10 {
            let page = try #require(try await store.track(share, after: after, limit: 1000))
            #expect(page.shareID == share)
            fixes += page.fixes
            pages += 1
            guard let next = page.next else { break }
            after = next
        }
        #expect(pages == 3)
        // Kept at the precision every track format prints (degrees to 9 decimals, metres to 3, …).
        #expect(fixes.map(\.tpvJSONLineBytes) == (0...2499).map { trackFix($0, complete: $0 % 2 == 0).tpvJSONLineBytes })
        // The share recorded last, and one never recorded.
        #expect(try await store.track(nil, after: 0, limit: 1000)?.shareID == share)
        #expect(try await store.track(ShareID(rawValue: "2e8e5c1a-9b5a-4e3c-9f2a-4b7d0e9c8f63"), after: 0, limit: 10) == nil)
        await store.close()
        // Kept across a restart.
        let reopened = try journal(directory, retention: .seconds(7 * 86_400), clock: clock)
        #expect(try await reopened.track(other, after: 0, limit: 1000)?.fixes.count == 10)
        await reopened.close()
    }

    @Test func aTrackIsKeptWholeForTheRetentionAfterItsLastFixThenRemoved() async throws {
        let directory = try Paths.temporaryDirectory("track-store")
        let clock = TestWallClock()
        var store = try journal(directory, retention: .seconds(3600 * 24), clock: clock)
        try await store.commit(batch(share, 0...9, through: 1))
        clock.advance(by: .seconds(23 * 3600))
        try await store.commit(batch(share, 10...19, through: 2))  // the share's last fix, 23 h after its first
        try await store.commit(batch(other, 0...4, through: 3))
        clock.advance(by: .seconds(2 * 3600))  // 25 h after share's first fixes, 2 h after its last
        try await store.commit(batch(other, 5...9, through: 4))
        #expect(try await store.track(share, after: 0, limit: 100)?.fixes.count == 20)
        clock.advance(by: .seconds(23 * 3600))  // 25 h after the share's last fix
        try await store.commit(batch(other, 10...10, through: 5))
        #expect(try await store.track(share, after: 0, limit: 100) == nil)
        #expect(try await store.track(other, after: 0, limit: 100)?.fixes.count == 11)
        await store.close()
        // A journal opened a day later removes what expired meanwhile.
        clock.advance(by: .seconds(25 * 3600))
        store = try journal(directory, retention: .seconds(3600 * 24), clock: clock)
        #expect(try await store.track(nil, after: 0, limit: 100) == nil)
        await store.close()
    }

    @Test func retentionOffKeepsNoneAndRemovesWhatWasKept() async throws {
        let directory = try Paths.temporaryDirectory("track-store")
        let clock = TestWallClock()
        var store = try journal(directory, retention: .seconds(3600), clock: clock)
        try await store.commit(batch(share, 0...9, through: 1))
        await store.close()
        store = try journal(directory, retention: nil, clock: clock)
        try await store.commit(batch(share, 10...19, through: 1))
        #expect(try await store.track(nil, after: 0, limit: 100) == nil)
        await store.close()
    }
}
