import LiveLocation
import Locking
import Testing

/// What a share records of its clock (`ShareSnapshot.timeBase`), and what it is for: after a
/// restart in the same boot, its expiry on the time since boot whatever the system clock says; the
/// corrections of its times, each told; a receiver whose time runs at the wrong pace, told once.
@Suite struct ShareTimeBaseTests {
    static let boot = BootID("01fa95bd-fc4a-4583-be7b-f77585edea41")!

    private func clock(_ board: TestSystemClocks, boot: BootID? = boot,
                       notify: @escaping @Sendable (ClockDiscipline.Notice) -> Void = { _ in }) -> DisciplinedClock {
        DisciplinedClock(read: { board.reading }, sleep: { _ in try await Task.sleep(for: .milliseconds(5)) },
                         bootID: boot, notify: notify)
    }

    /// A 15 min share from start + 1 s on the receiver's time (the board 3 h behind, unsynchronized),
    /// fixes to start + 60 s; its state as persisted then.
    private func persistedShare(on board: TestSystemClocks) async -> ShareSnapshot {
        let broadcaster = LiveLocationBroadcaster(clock: clock(board))
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 1))
        await broadcaster.start(.fifteenMinutes)
        for second in 2...60 {
            board.pass(.seconds(1))
            await broadcaster.accept(fix(at: Double(second)))
        }
        let share = await broadcaster.activeShare!
        _ = await drain(broadcaster)
        return share
    }

    private func waitUntilEnded(_ broadcaster: LiveLocationBroadcaster) async -> Bool {
        for _ in 0..<400 {
            if await broadcaster.activeShare == nil { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    @Test func aShareRecordsTheClockItsTimesAreOnAndTheBoot() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let broadcaster = LiveLocationBroadcaster(clock: clock(board))
        await broadcaster.start(.fifteenMinutes)
        let before = await broadcaster.activeShare?.timeBase
        #expect(before?.source == .systemClock && before?.bootID == Self.boot)
        #expect(before?.bootedAt == start - .seconds(3 * 3600 + 42))
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 1))
        let after = await broadcaster.activeShare
        #expect(after?.timeBase == ShareTimeBase(source: .receiver, bootID: Self.boot, bootedAt: start - .seconds(42)))
        // The expiry on the time since boot stays where it was: 900 s after the start.
        #expect(after.map { $0.expiresAt - $0.timeBase!.bootedAt } == .seconds(42 + 900))
        _ = await drain(broadcaster)
    }

    @Test(arguments: [20 * 60, -3600])
    func aShareResumedInTheSameBootEndsOnTheTimeSinceBootWhateverTheSystemClockSays(clockErrorSeconds: Int) async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let persisted = await persistedShare(on: board)
        // Restarted 5 s later in the same boot; meanwhile the system clock was set 20 min ahead of
        // (or 1 h behind) the true time, and nothing synchronizes it. No fix comes.
        board.pass(.seconds(5))
        board.step(.seconds(3 * 3600 + clockErrorSeconds))
        let broadcaster = LiveLocationBroadcaster(clock: clock(board))
        await broadcaster.resume(persisted)
        #expect(await broadcaster.activeShareAndTime?.now == start + .seconds(65))
        board.pass(.seconds(835))  // start + 900 s
        try? await Task.sleep(for: .milliseconds(50))
        #expect(await broadcaster.activeShare != nil, "a second before its end")
        board.pass(.seconds(1))
        #expect(await waitUntilEnded(broadcaster))
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events.first?.location?.expiresAt == start + .seconds(901))
        #expect(events.last?.endReason == .expired)
    }

    @Test func aShareFromAnOlderJournalWithoutATimeBaseIsJudgedOnTheClockAsBefore() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        var persisted = await persistedShare(on: board)
        persisted.timeBase = nil  // written before the base was recorded
        board.pass(.seconds(5))
        board.step(.seconds(3 * 3600 + 20 * 60))
        let broadcaster = LiveLocationBroadcaster(clock: clock(board))
        await broadcaster.resume(persisted)
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events.last?.endReason == .expired)
    }

    @Test func aShareFromAnotherBootIsJudgedAtOnceOnASynchronizedClock() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let persisted = await persistedShare(on: board)  // last fix at start + 60 s
        // Rebooted; restarted at start + 20 min on a synchronized clock: its time ran out 5 min ago.
        let rebooted = TestSystemClocks(systemTime: start + .seconds(20 * 60), synchronized: true)
        let broadcaster = LiveLocationBroadcaster(clock: clock(rebooted, boot: BootID(high: 1, low: 2)))
        await broadcaster.resume(persisted)
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["final", "ended"])
        #expect(events.first?.location?.expiresAt == start + .seconds(901))
        #expect(events.last?.endReason == .expired)
    }

    @Test func aShareResumedInTheSameBootKeepsItsTimesWhenTheFirstFixAgrees() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let persisted = await persistedShare(on: board)
        board.pass(.seconds(5))
        board.step(.seconds(3 * 3600 + 20 * 60))
        let corrections = Locked<[ShareTimesCorrection]>([])
        let broadcaster = LiveLocationBroadcaster(clock: clock(board)) { correction in corrections.withLock { $0.append(correction) } }
        await broadcaster.resume(persisted)
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 66.5))  // half a second off the first run's estimate: no correction
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated"])
        #expect(events.first?.location?.startedAt == start + .seconds(1))
        #expect(events.first?.location?.expiresAt == start + .seconds(901))
        #expect(corrections.withLock { $0 }.isEmpty)
    }

    @Test func everyCorrectionOfAnActiveSharesTimesIsTold() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let corrections = Locked<[ShareTimesCorrection]>([])
        let broadcaster = LiveLocationBroadcaster(clock: clock(board)) { correction in corrections.withLock { $0.append(correction) } }
        let share = await broadcaster.start(.fifteenMinutes).share  // on the system clock, 3 h behind
        board.pass(.seconds(5))
        await broadcaster.accept(fix(at: 5))
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 6))
        _ = await drain(broadcaster)
        #expect(corrections.withLock { $0 } == [ShareTimesCorrection(shareID: share.id, by: .seconds(3 * 3600), startedAt: start,
                                                                      expiresAt: start + .seconds(900), source: .receiver)])
    }

    @Test func aReceiverRunningTwiceAsFastIsToldOnceAndMovesNoShare() async {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        let notices = Locked<[ClockDiscipline.Notice]>([])
        let corrections = Locked<Int>(0)
        let broadcaster = LiveLocationBroadcaster(clock: clock(board) { notice in notices.withLock { $0.append(notice) } }) { _ in
            corrections.withLock { $0 += 1 }
        }
        await broadcaster.accept(fix(at: 0))
        await broadcaster.start(.fifteenMinutes)
        for second in 1...100 {
            board.pass(.seconds(1))
            await broadcaster.accept(fix(at: Double(2 * second)))
        }
        _ = await drain(broadcaster)
        #expect(notices.withLock { $0 } == [.receiverDistrusted(rate: 2)])
        #expect(corrections.withLock { $0 } == 0)
    }

    @Test func aReceiverBackToItsPaceIsFollowedAgain() {
        let board = TestSystemClocks(systemTime: start - .seconds(3 * 3600))
        var discipline = ClockDiscipline()
        var notices: [ClockDiscipline.Notice] = []
        var receiverTime = start
        for second in 1...120 {
            board.pass(.seconds(1))
            receiverTime = receiverTime + .seconds(second <= 40 ? 3 : 1)
            if let notice = discipline.observeFix(at: receiverTime, board.reading) { notices.append(notice) }
            _ = discipline.now(board.reading)
        }
        #expect(notices == [.receiverDistrusted(rate: 3), .receiverTrusted(rate: 1)])
        #expect(!discipline.receiverIsDistrusted)
        // Followed again: UTC is the receiver's.
        #expect(discipline.now(board.reading) == receiverTime)
    }

    @Test func aBootIDIsReadFromItsTextAndNothingElse() {
        #expect(BootID("01fa95bd-fc4a-4583-be7b-f77585edea41\n") == Self.boot)
        #expect(BootID("01FA95BD-FC4A-4583-BE7B-F77585EDEA41") == Self.boot)
        #expect(BootID("01fa95bd-fc4a-4583-be7b-f77585edea4") == nil)
        #expect(BootID("01fa95bd-fc4a-4583-be7b-f77585edea41a") == nil)
        #expect(BootID("") == nil)
        #expect(BootID("zz") == nil)
    }
}
