#if canImport(Glibc)
import Glibc
import CTimex
#endif
import Locking

/// Sleeps without a periodic wake-up: one thread blocked in `read` on a timerfd on CLOCK_BOOTTIME,
/// armed for the earliest deadline of all sleepers.
///
/// `Task.sleep` on Linux wakes the process every second while it waits (libdispatch re-arms its
/// timer a second at a time, whatever the deadline): a share's 15-minute expiry timer cost a
/// wake-up a second, an hour-long wait for cancellation 3,600. This timer's thread wakes once per
/// deadline reached; arming an earlier deadline is a `timerfd_settime` from the caller's thread, a
/// later one nothing. Time in suspend counts (CLOCK_BOOTTIME): a deadline that passed during a
/// suspend fires at resume.
package final class DeadlineTimer: Sendable {
    private struct Sleeper {
        var deadline: Int64  // CLOCK_BOOTTIME, nanoseconds
        var wake: Wake
    }

    private enum Wake {
        /// A task sleeping in `sleep(for:)`.
        case task(CheckedContinuation<Void, any Error>)
        /// A `schedule(after:)` action, run on the timer's thread.
        case action(@Sendable () -> Void)

        func run() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .action(let action): action()
            }
        }
    }

    private struct State {
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        /// The deadline the timerfd is armed for; nil when disarmed.
        var armedFor: Int64?
    }

    private let state = Locked(State())
    private let timer: Int32

    /// The process's one timer thread, started on first use.
    package static let shared: DeadlineTimer? = try? DeadlineTimer()

    /// How many sleeps and actions wait (for tests: a window with only their own).
    package var waiting: Int { state.withLock { $0.sleepers.count } }

    private init() throws(SystemError) {
        timer = timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC))
        guard timer >= 0 else { throw SystemError("timerfd_create") }
        try startDetachedThread(name: "livelocd-timer") { [self] in run() }
    }

    /// Suspends for `duration` (on CLOCK_BOOTTIME). Throws `CancellationError` when the task is
    /// cancelled. Falls back to `Task.sleep` where no timer thread could be started.
    package static func sleep(for duration: Duration) async throws {
        guard let shared else { return try await Task.sleep(for: duration) }
        try await shared.sleep(until: bootTimeNanoseconds() + duration.nanosecondsClamped)
    }

    private func sleep(until deadline: Int64) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let now: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= Self.bootTimeNanoseconds() { return .success(()) }
                    add(Sleeper(deadline: deadline, wake: .task(continuation)), id: id, &state)
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let sleeper = state.withLock { withdraw(id, &$0) }
            if case .task(let continuation) = sleeper?.wake { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Runs `action` on the timer's thread once `delay` has passed (on CLOCK_BOOTTIME): it must be
    /// short (hand the work to where it belongs). No task is made and no thread woken to arm it.
    /// Where no timer thread could be started, a task sleeps instead. Returns what `cancel` takes.
    @discardableResult
    package static func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> ScheduledAction {
        guard let shared else {
            Task {
                try? await Task.sleep(for: delay)
                action()
            }
            return ScheduledAction(id: 0)
        }
        let deadline = bootTimeNanoseconds() + delay.nanosecondsClamped
        return shared.state.withLock { state in
            state.nextID += 1
            shared.add(Sleeper(deadline: deadline, wake: .action(action)), id: state.nextID, &state)
            return ScheduledAction(id: state.nextID)
        }
    }

    /// A `schedule(after:)` action, for `cancel`.
    package struct ScheduledAction: Sendable {
        fileprivate let id: UInt64
    }

    /// Drops `action` if it has not run yet; the timer is armed for the next deadline (or disarmed),
    /// so that it wakes nobody for it.
    package static func cancel(_ action: ScheduledAction) {
        guard let shared else { return }
        _ = shared.state.withLock { shared.withdraw(action.id, &$0) }
    }

    /// Removes a sleeper; when the timer was armed for its deadline, arms it for the next one.
    private func withdraw(_ id: UInt64, _ state: inout State) -> Sleeper? {
        guard let sleeper = state.sleepers.removeValue(forKey: id) else { return nil }
        if state.armedFor == sleeper.deadline { arm(state.sleepers.values.map(\.deadline).min(), &state) }
        return sleeper
    }

    private func add(_ sleeper: Sleeper, id: UInt64, _ state: inout State) {
        state.sleepers[id] = sleeper
        if state.armedFor.map({ sleeper.deadline < $0 }) ?? true { arm(sleeper.deadline, &state) }
    }

    private func arm(_ deadline: Int64?, _ state: inout State) {
        state.armedFor = deadline
        var value = itimerspec()
        if let deadline {
            value.it_value = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        }
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &value, nil)
    }

    private func run() {
        var expirations: UInt64 = 0
        while true {
            // Blocks until the armed deadline passes (for ever while disarmed).
            _ = retryingOnInterrupt { read(timer, &expirations, 8) }
            let now = Self.bootTimeNanoseconds()
            let due = state.withLock { state -> [Sleeper] in
                let dueIDs = state.sleepers.filter { $0.value.deadline <= now }.map(\.key)
                let due = dueIDs.compactMap { state.sleepers.removeValue(forKey: $0) }
                arm(state.sleepers.values.map(\.deadline).min(), &state)
                return due
            }
            for sleeper in due.sorted(by: { $0.deadline < $1.deadline }) { sleeper.wake.run() }
        }
    }

    static func bootTimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

/// Suspends until the calling task is cancelled, with no timer at all.
package func waitUntilCancelled() async {
    let waiter = Locked<CheckedContinuation<Void, Never>?>(nil)
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let cancelled = waiter.withLock { waiter -> Bool in
                if Task.isCancelled { return true }
                waiter = continuation
                return false
            }
            if cancelled { continuation.resume() }
        }
    } onCancel: {
        waiter.withLock { waiter in
            waiter?.resume()
            waiter = nil
        }
    }
}

extension Duration {
    /// Nanoseconds, clamped to Int64 (a deadline centuries away stays far away).
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        guard seconds < 9_000_000_000, seconds > -9_000_000_000 else { return seconds > 0 ? Int64.max / 2 : 0 }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
