import LiveLocation
import Locking
import Testing

/// A board's clocks under the test's hand: the system clock (which may be wrong and may be
/// stepped), the time since boot (which suspend advances and nothing steps), adjtimex's verdict.
final class TestSystemClocks: Sendable {
    private let state: Locked<SystemClockReading>

    init(systemTime: Timestamp, synchronized: Bool = false) {
        state = Locked(SystemClockReading(systemTime: systemTime, sinceBoot: .seconds(42), systemClockSynchronized: synchronized))
    }

    var reading: SystemClockReading { state.withLock { $0 } }

    /// Time passes (awake or suspended: both clocks move).
    func pass(_ duration: Duration) { state.withLock { $0.systemTime = $0.systemTime + duration; $0.sinceBoot += duration } }

    /// The system clock is set (date -s, NTP's first step): only it moves.
    func step(_ duration: Duration) { state.withLock { $0.systemTime = $0.systemTime + duration } }

    func setSynchronized(_ synchronized: Bool) { state.withLock { $0.systemClockSynchronized = synchronized } }

    func makeClock() -> DisciplinedClock { DisciplinedClock { [self] in reading } }
}

/// UTC without a real-time clock: from the system clock while it is right, from the fixes while it
/// is not; a share's length on the time since boot.
@Suite struct ClockWithoutRTCTests {
    /// `start` is the true time; the board booted with its clock 3 h behind and not synchronized.
    private func boardThreeHoursBehind() -> TestSystemClocks {
        TestSystemClocks(systemTime: start - .seconds(3 * 3600))
    }

    @Test func aShareStartedOnAClockThreeHoursBehindIsDatedByTheFirstFix() async {
        let board = boardThreeHoursBehind()
        let clock = board.makeClock()
        let broadcaster = LiveLocationBroadcaster(clock: clock)
        let started = await broadcaster.start(.fifteenMinutes).share
        #expect(started.startedAt == start - .seconds(3 * 3600))  // nothing better known yet
        board.pass(.seconds(5))
        await broadcaster.accept(fix(at: 5))
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 6))
        let events = await drain(broadcaster)
        #expect(events.map(\.seq) == [1, 2])
        for event in events {
            #expect(event.location?.startedAt == start)
            #expect(event.location?.expiresAt == start + .seconds(900))
            #expect(event.location?.isActive == true)
        }
        #expect(clock.utcSource == .receiver(systemClockError: .seconds(-3 * 3600)))
    }

    @Test func clockStepsMidShareChangeNeitherItsTimesNorItsLengthNorItsSeq() async {
        let board = boardThreeHoursBehind()
        let clock = board.makeClock()
        let broadcaster = LiveLocationBroadcaster(clock: clock)
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 1))  // before the share: the clock learns the receiver's time
        let share = await broadcaster.start(.fifteenMinutes).share
        #expect(share.startedAt == start + .seconds(1))
        var second = 1.0
        for step: Duration in [.seconds(3 * 3600), .seconds(-3600), .seconds(7200)] {
            board.step(step)
            for _ in 0..<3 {
                board.pass(.seconds(1)); second += 1
                await broadcaster.accept(fix(at: second))
            }
        }
        // 9 s into the share: nowhere near its end, whatever the system clock says.
        #expect(await broadcaster.activeShare?.expiresAt == start + .seconds(901))
        board.pass(.seconds(891)); second += 891
        await broadcaster.accept(fix(at: second))  // 901 s after the start: expired
        let events = await drain(broadcaster)
        #expect(events.map(\.seq) == Array(1...11))
        #expect(events.map(\.kind) == Array(repeating: "updated", count: 9) + ["final", "ended"])
        for event in events.dropLast() {
            #expect(event.location?.startedAt == start + .seconds(1))
        }
        #expect(events[8].location?.expiresAt == start + .seconds(901))
        #expect(events[9].location?.expiresAt == start + .seconds(901))
        #expect(events[10].endReason == .expired)
    }

    @Test func aShareThatShouldHaveEndedDuringASuspendEndsAtResumeDatedAtItsTrueEnd() async {
        let board = TestSystemClocks(systemTime: start, synchronized: true)
        let clock = board.makeClock()
        let broadcaster = LiveLocationBroadcaster(clock: clock)
        await broadcaster.start(.fifteenMinutes)
        board.pass(.seconds(10))
        await broadcaster.accept(fix(at: 10))
        board.pass(.seconds(3600))  // the lid closed for an hour: the time since boot counts it
        #expect(clock.now == start + .seconds(3610))
        await broadcaster.accept(fix(at: 3610))  // the first fix after the resume ends the share
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "final", "ended"])
        #expect(events[1].location?.expiresAt == start + .seconds(900))
        #expect(events[1].location?.lastUpdateAt == start + .seconds(10))
        #expect(events[2].endReason == .expired)
    }

    @Test func theSystemClockIsBelievedWhileSynchronizedAndWithinTwoSecondsOfTheReceiver() {
        let board = TestSystemClocks(systemTime: start + .milliseconds(1500), synchronized: true)
        var discipline = ClockDiscipline()
        discipline.observeFix(at: start, board.reading)
        #expect(discipline.now(board.reading) == start + .milliseconds(1500))
        #expect(discipline.source == .systemClock(synchronized: true))
        board.step(.seconds(1))  // 2.5 s ahead of the receiver now
        #expect(discipline.now(board.reading) == start)
        #expect(discipline.source == .receiver(systemClockError: .milliseconds(2500)))
        #expect(discipline.correction == .milliseconds(-1500))
        board.setSynchronized(false)
        board.step(.seconds(-2))  // 0.5 s ahead, but nothing disciplines it: still the receiver
        #expect(discipline.now(board.reading) == start)
        #expect(discipline.source == .receiver(systemClockError: .milliseconds(500)))
    }

    @Test func withoutAFixTheSystemClockIsAllThereIsAndItsStepsAreFollowed() {
        let board = TestSystemClocks(systemTime: start, synchronized: false)
        var discipline = ClockDiscipline()
        #expect(discipline.now(board.reading) == start)
        board.pass(.milliseconds(700)); board.step(.milliseconds(900))  // under the step threshold: ignored
        #expect(discipline.now(board.reading) == start + .milliseconds(700))
        board.step(.seconds(60))
        #expect(discipline.now(board.reading) == start + .milliseconds(61_600))
        #expect(discipline.correction == .milliseconds(60_900))
        #expect(discipline.source == .systemClock(synchronized: false))
    }

    @Test func aShareTakenOverFromBeforeARestartKeepsItsTimesWhenTheClockIsCorrected() async {
        let board = boardThreeHoursBehind()
        let broadcaster = LiveLocationBroadcaster(clock: board.makeClock())
        let persisted = ShareSnapshot(id: ShareID(rawValue: "resumed"), startedAt: start - .seconds(60),
                                      expiresAt: start + .seconds(840), seq: 4, updatesSent: 4)
        await broadcaster.resume(persisted)
        board.pass(.seconds(1))
        await broadcaster.accept(fix(at: 1))
        let events = await drain(broadcaster)
        #expect(events.map(\.seq) == [5])
        #expect(events[0].location?.startedAt == start - .seconds(60))
        #expect(events[0].location?.expiresAt == start + .seconds(840))
    }
}
