import Foundation
import LiveLocation
import Replay
import SystemIO
import Testing
import TestSupport

@Suite struct NMEAReplaySourceTests {
    @Test func theClockStartsAtTheLogsFirstFixAndFollowsEachFixYielded() async throws {
        let source = try NMEAReplaySource(path: writeLog(seconds: 5).path, speed: 0)
        #expect(source.clock.now == logStart)
        var times: [Timestamp] = []
        for try await fix in source.fixes() {
            #expect(source.clock.now == fix.time)
            times.append(fix.time)
        }
        #expect(times == (0..<5).map { logStart + .seconds($0) })
    }

    @Test func fixesHandedInBlocksAreTheFixesOneByOneWithTheClockAtEach() async throws {
        let path = try writeLog(seconds: 40, named: "blocks.nmea").path
        var oneByOne: [Fix] = []
        for try await fix in try NMEAReplaySource(path: path, speed: 0).fixes() { oneByOne.append(fix) }
        let source = try NMEAReplaySource(path: path, speed: 0)
        var fixes = source.fixes().makeAsyncIterator()
        var inBlocks: [Fix] = []
        var calls = 0
        var clockBehind = 0
        // The consumer stops every 7th fix (as the pump does when the channel is full): the next
        // call goes on with the fix after it.
        while calls < 100, try await fixes.nextFixes(isolation: nil, { fix in
            if source.clock.now != fix.time { clockBehind += 1 }
            inBlocks.append(fix)
            return inBlocks.count % 7 != 0
        }) {
            calls += 1
        }
        #expect(oneByOne.count == 40)
        #expect(inBlocks == oneByOne)
        #expect(clockBehind == 0)
        // Six stops at most, plus one call per block read beyond the first.
        #expect((6...8).contains(calls), "calls \(calls)")
    }

    @Test func fixesAreReleasedOnTheLogsOwnPaceScaledBySpeed() async throws {
        // 6 s of log at 4x: the last fix comes 5 s / 4 = 1.25 s after the first.
        let source = try NMEAReplaySource(path: writeLog(seconds: 6).path, speed: 4)
        let clock = ContinuousClock()
        var first: ContinuousClock.Instant?
        var last: ContinuousClock.Instant?
        for try await _ in source.fixes() {
            if first == nil { first = clock.now }
            last = clock.now
        }
        let elapsed = last! - first!
        // At 1x it would take 5 s; the upper bound leaves room for a loaded machine, not for a wrong pace.
        #expect(elapsed >= .milliseconds(1200) && elapsed < .milliseconds(4000), "elapsed \(elapsed)")
    }

    @Test func loopingStartsAgainWithTimesShiftedSoTheTimelineKeepsMovingForward() async throws {
        let source = try NMEAReplaySource(path: writeLog(seconds: 3).path, speed: 0, loop: true)
        var times: [Timestamp] = []
        for try await fix in source.fixes() {
            times.append(fix.time)
            if times.count == 7 { break }
        }
        #expect(times == (0..<7).map { logStart + .seconds($0) })
    }

    @Test func aShareOverALongerLogExpiresAtLogTimePlusDurationWhateverTheSpeed() async throws {
        let path = try writeLog(seconds: 20 * 60).path
        for speed in [0.0, 3000.0] {
            let source = try NMEAReplaySource(path: path, speed: speed)
            let broadcaster = LiveLocationBroadcaster(clock: source.clock)
            let share = await broadcaster.start(.fifteenMinutes).share
            let events = try await pumpAndCollect(source, through: broadcaster)
            #expect(events.last == .ended(shareID: share.id, seq: 902, reason: .expired), "speed \(speed)")
            guard case .updated(_, 901, let final) = events[events.count - 2] else {
                Issue.record("no final update at speed \(speed)")
                continue
            }
            #expect(final.expiresAt == logStart + .seconds(900) && !final.isActive)
            #expect(final.startedAt == logStart)
            #expect(final.lastUpdateAt == logStart + .seconds(899))
        }
    }

    @Test func aShareLongerThanTheLogEndsWithSourceEnded() async throws {
        let source = try NMEAReplaySource(path: writeLog(seconds: 10).path, speed: 0)
        let broadcaster = LiveLocationBroadcaster(clock: source.clock)
        await broadcaster.start(.oneHour)
        let last = try await pumpAndCollect(source, through: broadcaster).last
        #expect(last?.seq == 12)
        if case .ended(_, _, let reason) = last { #expect(reason == .sourceEnded) } else { Issue.record("no ended") }
    }

    @Test func aMissingFileIsAnErrorNamingThePath() {
        #expect(throws: SystemError("open", target: "/nonexistent/x.nmea", errno: .noSuchFileOrDirectory)) {
            try NMEAReplaySource(path: "/nonexistent/x.nmea")
        }
    }

    @Test func aLogWithoutAnyFixIsRejected() throws {
        let url = try Paths.temporaryDirectory("replay").appendingPathComponent("empty.nmea")
        try "garbage\n$GPTXT,hello*00\n".write(to: url, atomically: true, encoding: .utf8)
        #expect(throws: ReplayError.noFixes(path: url.path)) { try NMEAReplaySource(path: url.path) }
    }

    @Test func aNegativeSpeedIsRejected() throws {
        let path = try writeLog(seconds: 2).path
        #expect(throws: ReplayError.invalidSpeed(-1)) { try NMEAReplaySource(path: path, speed: -1) }
    }
}

/// Pumps `source` into `broadcaster` while consuming its events, as a real sink does (the pump
/// waits for the consumer when it falls behind), and returns the events.
func pumpAndCollect(_ source: NMEAReplaySource, through broadcaster: LiveLocationBroadcaster) async throws -> [ShareEvent] {
    async let collected: [ShareEvent] = {
        var events: [ShareEvent] = []
        for await event in broadcaster.events { events.append(event) }
        return events
    }()
    try await broadcaster.pump(from: source)
    await broadcaster.finish()
    return await collected
}
