import LiveLocation
import Testing

/// A share taken over after a restart on a board without a real-time clock: its times came from
/// the receiver; the system clock the restart finds is not synchronized and may be far ahead or
/// behind. Its expiry is never decided on that clock (issue 29, items 5 and 6).
@Suite struct ResumeWithoutRTCTests {
    /// A 15 min share from start + 1 s (the receiver's time), with fixes to start + 60 s; persisted
    /// as it is then. The first run's board had its clock 3 h behind and unsynchronized.
    private func persistedShare() async -> ShareSnapshot {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let broadcaster = LiveLocationBroadcaster(clock: board.makeClock())
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 1))
        await broadcaster.start(.fifteenMinutes)
        for second in 2...60 {
            board.pass(.seconds(1))
            await broadcaster.accept(fix(at: Double(second)))
        }
        let share = await broadcaster.activeShare!
        #expect(share.startedAt == start + .seconds(1) && share.expiresAt == start + .seconds(901))
        _ = await drain(broadcaster)
        return share
    }

    /// A clock on `board` whose sleeps look at the board again every few milliseconds, so that the
    /// expiry timer wakes as soon as the test moves the board's time past its deadline.
    private func pollingClock(_ board: TestSystemClocks) -> DisciplinedClock {
        DisciplinedClock(read: { board.reading }, sleep: { _ in try await Task.sleep(for: .milliseconds(5)) })
    }

    /// Waits (at most 2 s) until the broadcaster has no active share; returns whether it came to that.
    private func waitUntilEnded(_ broadcaster: LiveLocationBroadcaster) async -> Bool {
        for _ in 0..<400 {
            if await broadcaster.activeShare == nil { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    @Test func aShareResumedOnAClockAheadIsNotEndedBeforeTheFirstFixSaysItsTimeIsUp() async throws {
        let persisted = await persistedShare()
        // Restarted 5 s later (start + 65 s), the system clock 20 min ahead (an RTC in local time,
        // a fake-hwclock restored from a later date): on it the share would have expired 4 min ago.
        let board = TestSystemClocks(systemTime: start + .seconds(65 + 20 * 60))
        let broadcaster = LiveLocationBroadcaster(clock: pollingClock(board))
        await broadcaster.resume(persisted)
        board.pass(.seconds(6))
        try await Task.sleep(for: .milliseconds(50))  // the expiry timer would have fired by now
        #expect(await broadcaster.activeShare?.id == persisted.id, "resumed, then ended without a fix")
        await broadcaster.accept(fix(at: 71))  // the first fix: 830 s left
        #expect(await broadcaster.activeShare?.expiresAt == start + .seconds(901))
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated"])
        #expect(events.first?.seq == persisted.seq + 1)
        #expect(events.first?.location?.expiresAt == start + .seconds(901))
        #expect(events.first?.location?.startedAt == start + .seconds(1))
    }

    @Test func aShareResumedOnAClockAheadAndThenReplacedEndsSupersededNotExpired() async {
        let persisted = await persistedShare()
        let board = TestSystemClocks(systemTime: start + .seconds(65 + 20 * 60))
        let broadcaster = LiveLocationBroadcaster(clock: pollingClock(board))
        await broadcaster.resume(persisted)  // as `liveloc share` does with what a killed run left
        board.pass(.seconds(1))
        await broadcaster.start(.fifteenMinutes)
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events.last?.endReason == .superseded)
        // Ended within its times, never dated after its expiry.
        let finalExpiry = events.first?.location?.expiresAt
        #expect(finalExpiry.map { $0 <= start + .seconds(901) && $0 >= start + .seconds(1) } == true)
    }

    @Test func aShareResumedOnAClockBehindWithoutAFixEndsOnceTheTimeItHadLeftHasPassed() async {
        let persisted = await persistedShare()  // last fix at start + 60 s: 841 s left then
        // Restarted on a clock 1 h behind; no fix comes (no sky view, gpsd down).
        let board = TestSystemClocks(systemTime: start + .seconds(65) - .seconds(3600))
        let broadcaster = LiveLocationBroadcaster(clock: pollingClock(board))
        await broadcaster.resume(persisted)
        board.pass(.seconds(830))
        try? await Task.sleep(for: .milliseconds(50))
        #expect(await broadcaster.activeShare != nil, "11 s before the latest it can end")
        board.pass(.seconds(12))  // 16 min after it started, without the time of the restart
        #expect(await waitUntilEnded(broadcaster), "still active 842 s after the take-over of a share with 841 s left")
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events.first?.location?.expiresAt == start + .seconds(901))
        #expect(events.last?.endReason == .expired)
    }

    @Test func aReceiverWhoseTimeRunsTwiceAsFastDoesNotRewriteTheSharesStart() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let broadcaster = LiveLocationBroadcaster(clock: board.makeClock())
        await broadcaster.accept(fix(at: 0))
        await broadcaster.start(.fifteenMinutes)
        for second in 1...100 {
            board.pass(.seconds(1))
            await broadcaster.accept(fix(at: Double(2 * second)))  // two receiver seconds a second
        }
        let events = await drain(broadcaster)
        #expect(events.count == 100)
        var rewrites = 0
        for (before, after) in zip(events, events.dropFirst()) where before.location?.startedAt != after.location?.startedAt {
            rewrites += 1
        }
        #expect(rewrites == 0, "\(rewrites) of \(events.count) updates moved startedAt")
        #expect(events.first?.location?.startedAt == start)
        #expect(events.allSatisfy { $0.location.map { $0.expiresAt - $0.startedAt } == .seconds(900) })
    }
}
