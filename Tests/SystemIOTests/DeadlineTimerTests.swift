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

    @Test func sleepersWakeAtTheirDeadlinesInOrderWhateverTheOrderTheyCameIn() async throws {
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
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3))
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
