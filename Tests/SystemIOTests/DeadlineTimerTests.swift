import Foundation
import Locking
@testable import SystemIO
import Testing

/// Sleeping on the timer thread: on time, in deadline order whatever the order of arming,
/// cancellable, and without the periodic wake-up `Task.sleep` costs on Linux.
@Suite(.serialized) struct DeadlineTimerTests {
    final class WakeOrder: Sendable {
        let indices = Locked<[Int]>([])
    }

    /// The order and "not before": a sleeper resumes on the cooperative pool, which a full parallel
    /// run keeps busy for seconds at its start, so how late it resumes is the pool's, not the timer's.
    @Test func sleepersWakeInDeadlineOrderWhateverTheOrderTheyCameInAndNeverEarly() async throws {
        let woken = WakeOrder()
        let start = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for (index, milliseconds) in [300, 100, 200].enumerated() {
                group.addTask {
                    try? await DeadlineTimer.sleep(for: .milliseconds(milliseconds))
                    woken.indices.withLock { $0.append(index) }
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(woken.indices.withLock { $0 } == [1, 2, 0])
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(30))
    }

    /// The timer's own accuracy, on its thread: each action runs at its deadline, not before, and
    /// within half a second after (a loaded 2-core machine delays a thread's wake by milliseconds).
    @Test func scheduledActionsRunAtTheirDeadlinesInOrder() async throws {
        let fired = Locked<[(index: Int, at: Duration)]>([])
        let start = ContinuousClock.now
        let deadlines: [Duration] = [.milliseconds(300), .milliseconds(100), .milliseconds(200)]
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for (index, deadline) in deadlines.enumerated() {
                _ = DeadlineTimer.schedule(after: deadline) {
                    let count = fired.withLock { fired -> Int in
                        fired.append((index, ContinuousClock.now - start))
                        return fired.count
                    }
                    if count == deadlines.count { done.resume() }
                }
            }
        }
        let runs = fired.withLock { $0 }
        #expect(runs.map(\.index) == [1, 2, 0])
        for run in runs {
            #expect(run.at >= deadlines[run.index] && run.at < deadlines[run.index] + .milliseconds(500),
                    "action \(run.index) ran at \(run.at), due at \(deadlines[run.index])")
        }
    }

    @Test func aCancelledSleepEndsAtOnceWithCancellationError() async throws {
        let start = ContinuousClock.now
        let sleeper = Task { try await DeadlineTimer.sleep(for: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(50))
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aLongSleepWakesTheTimerThreadNotOnceASecond() async throws {
        try await DeadlineTimer.sleep(for: .milliseconds(1))  // the thread exists
        // Other suites' deadlines (a journal's acknowledgement timer, 5 s) pass first, bounded.
        let timer = try #require(DeadlineTimer.shared)
        for _ in 0..<100 where timer.waiting > 0 { try await Task.sleep(for: .milliseconds(100)) }
        let sleeper = Task { try await DeadlineTimer.sleep(for: .seconds(600)) }
        defer { sleeper.cancel() }
        try await Task.sleep(for: .milliseconds(100))
        let before = try timerThreadWakeUps()
        try await Task.sleep(for: .milliseconds(3500))
        let after = try timerThreadWakeUps()
        // A timer that ticks once a second wakes 3 times or more here; one wake is allowed for a
        // deadline another test (run in parallel) may set meanwhile.
        #expect(after - before <= 1, "the timer thread woke \(after - before) times in 3.5 s with one sleeper 10 min away")
    }

    /// The voluntary context switches of this process's timer thread.
    private func timerThreadWakeUps() throws -> Int {
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix("livelocd-timer") else { continue }
            let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
            let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches") }
            return Int(line?.split(separator: "\t").last ?? "") ?? -1
        }
        throw POSIXError(.ESRCH)
    }
}
