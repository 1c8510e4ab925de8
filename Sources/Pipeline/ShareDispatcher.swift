import Delivery
import Journal
import LiveLocation
import Locking
import SystemIO

/// The one consumer of a broadcaster's batches, for livelocd, `liveloc share` and the benches:
/// commits each batch to the journal (when there is one) in one transaction, then hands it on:
/// its events to stdout, to each durable destination's runner the entries the commit queued for it
/// (JSON included: a runner that is caught up reads nothing back), its inputs to the callers
/// waiting. Nothing downstream sees an event before it is on disk, and a `start`/`stop` is answered
/// only once its batch is (`waitUntilCommitted`). An event walks one way: only the loop commits,
/// and it hands on what it committed, in order.
///
/// With a `syncDelay` (`journal.sync_delay`), a batch of updates of an active share may be held in
/// memory (`HeldBatches`); one transaction and one sync then carry several (fewer wake-ups, less
/// CPU and fewer flash writes, each update up to `syncDelay` later). The held batches are committed
/// with the next batch that cannot wait, or when the oldest one's deadline comes: a timer then
/// wakes the loop from its wait for the next batch (as does a caller that starts waiting for an
/// input held). Nothing held has left the process: a crash or a power cut loses at most those
/// updates, never one anybody saw.
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
        /// The newest input held (`syncDelay`), 0 when none is.
        var heldThrough: UInt64 = 0
        /// The loop must commit what it holds (the deadline came, or a caller waits for it).
        var woken = false
        /// The loop's wait for the next batch while it holds some: cancelled to wake it.
        var taking: Task<ShareBatch?, Never>?
    }

    private let journal: Journal?
    private let runners: [DestinationRunner]
    private let stdout: StdoutWriter?
    private let log: Logger
    private let onEvents: @Sendable ([ShareEvent]) async -> Void
    private let state = Locked(State())
    /// How long an update may wait for a sync that carries several (nil: each batch is synced).
    private let syncDelay: Duration?
    /// The longest wait between two attempts at a batch the journal refused.
    private let maximumRetryWait: Duration

    /// - Parameters:
    ///   - onEvents: called with each batch's events after they were handed on (logging, status line).
    ///   - syncDelay: how long an update may wait to share a sync with the next ones (nil: none waits).
    package init(journal: Journal?, runners: [DestinationRunner], stdout: StdoutWriter?,
                 maximumRetryWait: Duration = .seconds(5), syncDelay: Duration? = nil,
                 log: Logger,
                 onEvents: @escaping @Sendable ([ShareEvent]) async -> Void = { _ in }) {
        self.journal = journal
        self.runners = runners
        self.stdout = stdout
        self.maximumRetryWait = maximumRetryWait
        self.syncDelay = journal == nil ? nil : syncDelay
        self.log = log
        self.onEvents = onEvents
    }

    /// What the loop's wait ended with.
    private enum Taken {
        case batch(ShareBatch)
        /// Woken: the batches held are due.
        case woken
        /// The broadcaster finished, or the task was cancelled.
        case finished
    }

    /// Takes batches until the broadcaster finishes (after `finish()`), so that whatever was emitted
    /// before a shutdown is committed. Returns early only when its task is cancelled.
    package func run(_ batches: ShareBatches) async {
        var held = HeldBatches(syncDelay: syncDelay)
        var iterator = batches.makeAsyncIterator()
        var timer: DeadlineTimer.ScheduledAction?
        loop: while true {
            let taken: Taken
            if held.heldThrough == nil {
                taken = await iterator.next().map(Taken.batch) ?? .finished
            } else {
                taken = await next(batches)
            }
            let now = ContinuousClock.now
            switch taken {
            case .finished: break loop
            case .woken: break
            case .batch(let batch):
                // In one critical section with `committed`: a caller starts waiting either before
                // (the batch is not held) or after (it wakes the loop).
                let holds = state.withLock { state in
                    let awaited = state.woken || state.waiters.keys.contains { $0 <= batch.through }
                    guard held.take(batch, at: now, awaited: awaited), !held.isDue(at: now) else { return false }
                    state.heldThrough = batch.through
                    return true
                }
                if holds {
                    if timer == nil, let deadline = held.deadline {
                        timer = DeadlineTimer.schedule(after: deadline - now) { [weak self] in self?.wake() }
                    }
                    continue loop
                }
            }
            if let armed = timer { DeadlineTimer.cancel(armed) }
            timer = nil
            state.withLock { state in
                state.busySince = now
                state.woken = false
                state.heldThrough = 0
            }
            guard await commit(held.takeAll()) else { break }
            state.withLock { $0.busySince = nil }
        }
        if let armed = timer { DeadlineTimer.cancel(armed) }
        // Whatever is held is committed (or, the journal failing, lost: it never left the process).
        state.withLock { $0.finished = true }
        if held.heldThrough != nil { _ = await commit(held.takeAll()) }
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap { $0.values }
        }
        for waiter in waiters { waiter.resume(returning: .failure(.closed)) }
    }

    /// The next batch, or `woken` when `wake()` comes first (at once if it came meanwhile), while
    /// batches are held. The wait runs in a task of its own, on the journal's thread, that `wake()`
    /// cancels; a batch taken as it was cancelled is not lost (`ShareBatches` gives it or keeps it).
    private func next(_ batches: ShareBatches) async -> Taken {
        let take = Task(executorPreference: journal?.taskExecutor) {
            var iterator = batches.makeAsyncIterator()
            return await iterator.next()
        }
        let wokenAlready = state.withLock { state in
            state.taking = take
            return state.woken
        }
        if wokenAlready { take.cancel() }
        let batch = await withTaskCancellationHandler { await take.value } onCancel: { take.cancel() }
        let woken = state.withLock { state in
            state.taking = nil
            return state.woken
        }
        if let batch { return .batch(batch) }
        return woken && !Task.isCancelled ? .woken : .finished
    }

    /// Makes the loop commit what it holds now: from the deadline's timer (on the timer's thread),
    /// or for a caller that waits for an input held.
    private func wake() {
        let take = state.withLock { state -> Task<ShareBatch?, Never>? in
            guard state.heldThrough != 0 else { return nil }  // committed meanwhile
            state.woken = true
            return state.taking
        }
        take?.cancel()
    }

    /// Commits `batches` in one transaction and hands them on, retrying while the journal fails
    /// (the loop waits, and with it the source: no fix becomes an event that could be lost); false
    /// when cancelled (or, shutting down, given up) first. Without a journal, hands them on.
    private func commit(_ batches: [ShareBatch]) async -> Bool {
        guard let through = batches.last?.through else { return true }
        var failures = 0
        var queued: [String: [QueuedEvent]] = [:]
        while let journal {
            do {
                queued = try await journal.commit(batches)
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
                    let holding = batches.reduce(0) { $0 + $1.events.count }
                    log.limited(.error, key: "journal holding",
                                "\(error); holding \(holding) event(s) and the source until it can be written (start/stop answer 'internal' meanwhile)") { count, window in
                        "journal: \(count.thousandsSeparated) more failure(s) to write in the last \(window.shortText); the source was held each time"
                    }
                }
                if error.isLasting, state.withLock({ $0.shuttingDown }) { return false }
                let wait = min(maximumRetryWait, .milliseconds(250) * (1 << min(failures, 5)))
                do { try await Task.sleep(for: wait) } catch { return false }
            }
        }
        state.withLock { $0.failure = nil }
        // Committed and synced: handed on, in order.
        let events = batches.flatMap(\.events)
        if !events.isEmpty {
            stdout?.write(events)
            for runner in runners { runner.handOn(queued[runner.destination.identity] ?? []) }
        }
        resumeWaiters(through: through)
        if !events.isEmpty { await onEvents(events) }
        return true
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
                let (ready, held) = state.withLock { state -> (Result<Void, JournalError>?, Bool) in
                    if state.committedThrough >= input { return (.success(()), false) }
                    if state.finished || Task.isCancelled { return (.failure(state.failure ?? .closed), false) }
                    state.waiters[input, default: [:]][id] = continuation
                    return (nil, input <= state.heldThrough)
                }
                if let ready { continuation.resume(returning: ready) }
                // Held for a sync with later updates: nobody waits for those, somebody does for it.
                if held { wake() }
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

    /// The runners' views, for `liveloc status`, with `activeShare`'s link where a destination has one.
    package func destinationStatus(activeShare: ShareID? = nil) async -> [DestinationStatus] {
        var result: [DestinationStatus] = []
        for runner in runners { result.append(await runner.status(activeShare: activeShare)) }
        return result
    }

    /// The inputs through `through` are committed and synced: their callers are answered.
    private func resumeWaiters(through: UInt64) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Void, JournalError>, Never>] in
            state.committedThrough = max(state.committedThrough, through)
            let due = state.waiters.keys.filter { $0 <= through }
            return due.flatMap { state.waiters.removeValue(forKey: $0)?.values.map { $0 } ?? [] }
        }
        for waiter in waiters { waiter.resume(returning: .success(())) }
    }
}
