import Locking

/// The time a broadcaster runs on: the wall clock for a live source, a log's own timeline for a
/// replay, a manual clock in tests.
public protocol ShareClock: Sendable {
    /// The current time.
    var now: Timestamp { get }

    /// Suspends until `now >= deadline`. Throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: Timestamp) async throws

    /// The current time with the corrections made to it so far (a clock that only counts time, as a
    /// log's timeline, makes none).
    var reading: ClockReading { get }

    /// Where the clock's UTC comes from; nil for a timeline of its own (a replay, a test).
    var utcSource: UTCSource? { get }

    /// A fix the source delivered, just now: a clock may take the receiver's time from it. Returns
    /// the reading after it (one look at the clocks per fix).
    func observe(_ fix: Fix) -> ClockReading
}

extension ShareClock {
    public var reading: ClockReading { ClockReading(now: now) }
    public var utcSource: UTCSource? { nil }
    public func observe(_ fix: Fix) -> ClockReading { reading }
}

/// A clock that moves only when told to: the timeline of a replayed log, or a test's time.
///
/// `advance(to:)` never moves backwards; sleepers whose deadline is reached are resumed.
public final class ManualClock: ShareClock {
    private struct State {
        var now: Timestamp
        var sleepers: [UInt64: (deadline: Timestamp, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextSleeperID: UInt64 = 0
        /// No sleeper is due before this: a replay advances the clock once per fix, and most
        /// advances wake nobody.
        var earliestDeadline: Timestamp?
    }

    // A clock is a synchronisation primitive itself: `now` must be readable without suspending, so
    // that the broadcaster reads it atomically with the fix it handles.
    private let state: Locked<State>

    public init(now: Timestamp = Timestamp(millisecondsSince1970: 0)) {
        state = Locked(State(now: now))
    }

    public var now: Timestamp { state.withLock { $0.now } }

    /// Moves the clock to `time` (if later than now) and wakes the sleepers that are due.
    public func advance(to time: Timestamp) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard time > state.now else { return [] }
            state.now = time
            guard let earliest = state.earliestDeadline, earliest <= time else { return [] }
            let dueIDs = state.sleepers.filter { $0.value.deadline <= time }.map(\.key)
            let due = dueIDs.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
            state.earliestDeadline = state.sleepers.values.map(\.deadline).min()
            return due
        }
        for continuation in due { continuation.resume() }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        advance(to: now + duration)
    }

    public func sleep(until deadline: Timestamp) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextSleeperID += 1
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = (deadline, continuation)
                    state.earliestDeadline = min(state.earliestDeadline ?? deadline, deadline)
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.sleepers.removeValue(forKey: id)?.continuation }
            continuation?.resume(throwing: CancellationError())
        }
    }
}
