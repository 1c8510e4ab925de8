import Delivery
import Journal
import LiveLocation
import Locking
import SystemIO

/// The one consumer of a broadcaster's batches, for livelocd, `liveloc share` and the benches:
/// commits each batch to the journal (when there is one) in one transaction, then hands its events
/// to stdout and wakes the durable destinations' runners. Nothing downstream sees an event before it
/// is on disk, and a `start`/`stop` is answered only once its batch is (`waitUntilCommitted`).
///
/// When the journal cannot be written (a full disk), the batch is held and committed again with a
/// backoff; meanwhile the broadcaster's buffer fills and its source pump waits, so no fix becomes an
/// event that could be lost. One log line when that starts, one when it ends.
package final class ShareDispatcher: Sendable {
    private struct State {
        var committedThrough: UInt64 = 0
        var failure: JournalError?
        /// Callers waiting for a batch to be committed: by input number, then by waiter id.
        var waiters: [UInt64: [Int: CheckedContinuation<Result<Void, JournalError>, Never>]] = [:]
        var nextWaiter = 0
        var busySince: ContinuousClock.Instant?
        var finished = false
        var shuttingDown = false
    }

    private let journal: Journal?
    private let runners: [DestinationRunner]
    private let stdout: StdoutWriter?
    private let log: Logger
    private let onEvents: @Sendable ([ShareEvent]) async -> Void
    private let state = Locked(State())
    /// The longest wait between two attempts at a batch the journal refused.
    private let maximumRetryWait: Duration

    /// - Parameters:
    ///   - onEvents: called with each batch's events after they were handed on (logging, status line).
    package init(journal: Journal?, runners: [DestinationRunner], stdout: StdoutWriter?,
                 maximumRetryWait: Duration = .seconds(5),
                 log: Logger,
                 onEvents: @escaping @Sendable ([ShareEvent]) async -> Void = { _ in }) {
        self.journal = journal
        self.runners = runners
        self.stdout = stdout
        self.maximumRetryWait = maximumRetryWait
        self.log = log
        self.onEvents = onEvents
    }

    /// Takes batches until the broadcaster finishes (after `finish()`), so that whatever was emitted
    /// before a shutdown is committed. Returns early only when its task is cancelled.
    package func run(_ batches: ShareBatches) async {
        for await batch in batches {
            let start = ContinuousClock.now
            state.withLock { $0.busySince = start }
            guard await commit(batch) else { break }
            stdout?.write(batch.events)
            for runner in runners where !batch.events.isEmpty { runner.wake() }
            if !batch.events.isEmpty { await onEvents(batch.events) }
            state.withLock { $0.busySince = nil }
        }
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap { $0.values }
        }
        for waiter in waiters { waiter.resume(returning: .failure(.closed)) }
    }

    /// Waits until the batch holding input `input` is committed; throws the journal's failure when it
    /// is not committed within `timeout` (the input then takes effect once the journal can be written).
    package func waitUntilCommitted(_ input: UInt64, timeout: Duration = .seconds(5)) async throws(JournalError) {
        let result: Result<Void, JournalError> = await withTaskGroup(of: Result<Void, JournalError>?.self) { group in
            group.addTask { await self.committed(input) }
            group.addTask {
                try? await DeadlineTimer.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first ?? .failure(self.journalFailure ?? .closed)
        }
        try result.get()
    }

    /// Waits until `input` is committed; a failure when the dispatcher finished first or the
    /// waiting task is cancelled (the caller's timeout).
    private func committed(_ input: UInt64) async -> Result<Void, JournalError> {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Result<Void, JournalError>? in
                    if state.committedThrough >= input { return .success(()) }
                    if state.finished || Task.isCancelled { return .failure(state.failure ?? .closed) }
                    state.waiters[input, default: [:]][id] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in state.waiters[input]?.removeValue(forKey: id) }
            waiter?.resume(returning: .failure(state.withLock { $0.failure } ?? .closed))
        }
    }

    /// The shutdown began: a batch the journal can never take (its file gone or damaged) is given
    /// up at its next attempt instead of being retried for ever (it was never promised).
    package func shuttingDown() { state.withLock { $0.shuttingDown = true } }

    /// The journal's failure while it cannot be written; nil when it can.
    package var journalFailure: JournalError? { state.withLock { $0.failure } }

    /// How long the batch in hand has been handled; zero while idle (the watchdog's measure).
    package var busyFor: Duration {
        let now = ContinuousClock.now
        return state.withLock { state in state.busySince.map { now - $0 } ?? .zero }
    }

    /// The journal's queues of receivers not configured now, for `liveloc status`.
    package func leftovers() async -> [LeftoverQueue] {
        await journal?.leftoverQueues ?? []
    }

    /// The runners' views, for `liveloc status`.
    package func destinationStatus() async -> [DestinationStatus] {
        var result: [DestinationStatus] = []
        for runner in runners { result.append(await runner.status()) }
        return result
    }

    /// Commits `batch`, retrying while the journal fails; false when cancelled first.
    private func commit(_ batch: ShareBatch) async -> Bool {
        var failures = 0
        while let journal {
            do {
                try await journal.commit(batch)
                if failures > 0 {
                    log.limited(.notice, key: "journal writing again", "journal: writing again after \(failures) failed attempt(s); nothing was lost") { count, window in
                        "journal: writing again after \(count.thousandsSeparated) more failure(s) in the last \(window.shortText); nothing was lost"
                    }
                }
                break
            } catch {
                failures += 1
                let first = state.withLock { state -> Bool in
                    defer { state.failure = error }
                    return state.failure == nil
                }
                if first {
                    // A journal failing every other commit would say so with every batch: rate-limited.
                    log.limited(.error, key: "journal holding",
                                "\(error); holding \(batch.events.count) event(s) and the source until it can be written (start/stop answer 'internal' meanwhile)") { count, window in
                        "journal: \(count.thousandsSeparated) more failure(s) to write in the last \(window.shortText); the source was held each time"
                    }
                }
                if error.isLasting, state.withLock({ $0.shuttingDown }) { return false }
                let wait = min(maximumRetryWait, .milliseconds(250) * (1 << min(failures, 5)))
                do { try await Task.sleep(for: wait) } catch { return false }
            }
        }
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Void, JournalError>, Never>] in
            state.failure = nil
            state.committedThrough = batch.through
            let due = state.waiters.keys.filter { $0 <= batch.through }
            return due.flatMap { state.waiters.removeValue(forKey: $0)?.values.map { $0 } ?? [] }
        }
        for waiter in waiters { waiter.resume(returning: .success(())) }
        return true
    }
}
