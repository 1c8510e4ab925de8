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
/// With a `syncDelay` (`journal.sync_delay`), a batch of updates of an active share may be held in
/// memory; one transaction and one sync then carry several (fewer wake-ups, less CPU and fewer
/// flash writes, each update up to `syncDelay` later). The held batches are committed with the next
/// batch that cannot wait (one that starts or ends a share, one a caller waits for, one whose
/// successor, at the last interval between batches, would come after the oldest held batch's
/// deadline) or by the deadline's timer, then handed on in order. Nothing held has left the
/// process: a crash or a power cut loses at most those updates, never one anybody saw.
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
        /// When the batch before the last one arrived, for the interval between batches.
        var lastBatchAt: ContinuousClock.Instant?
        var interval: Duration?
    }

    /// Batches waiting to be committed (`syncDelay`), in order. They are committed and handed on
    /// in the journal's isolation (`Journal.commit(_:then:)`), so that the timer's and the loop's
    /// commits keep the batches' order.
    private struct Held {
        /// The batches, each with when it came.
        var batches: [(batch: ShareBatch, at: ContinuousClock.Instant)] = []
        /// How many batches were handed on: batch number `n` (0-based, in the order held) is
        /// committed once `handedOn > n`; the next one held gets `handedOn + batches.count`.
        var handedOn = 0
        /// The oldest one's deadline timer, while armed.
        var timer: DeadlineTimer.ScheduledAction?
        var since: ContinuousClock.Instant? { batches.first?.at }
    }

    private let journal: Journal?
    private let runners: [DestinationRunner]
    private let stdout: StdoutWriter?
    private let log: Logger
    private let onEvents: @Sendable ([ShareEvent]) async -> Void
    private let state = Locked(State())
    private let held = Locked(Held())
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

    /// Takes batches until the broadcaster finishes (after `finish()`), so that whatever was emitted
    /// before a shutdown is committed. Returns early only when its task is cancelled.
    package func run(_ batches: ShareBatches) async {
        for await batch in batches {
            let start = ContinuousClock.now
            let mayWait = self.mayWait(batch, at: start)
            let number = hold(batch, at: start, armingTimer: mayWait)
            if mayWait { continue }
            state.withLock { $0.busySince = start }
            guard await commitHeld(through: number) else { break }
            state.withLock { $0.busySince = nil }
        }
        // Whatever is held is committed (or, the journal failing, lost: it never left the process).
        state.withLock { $0.finished = true }
        if let last = held.withLock({ $0.batches.isEmpty ? nil : $0.handedOn + $0.batches.count - 1 }) {
            _ = await commitHeld(through: last)
        }
        let waiters = state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values.flatMap { $0.values }
        }
        for waiter in waiters { waiter.resume(returning: .failure(.closed)) }
    }

    /// Whether `batch` may wait in memory to be committed with later ones: updates of an active share
    /// only (a share's start and end are answered and handed on at once), no caller waiting for it,
    /// and the oldest held batch's deadline not due by the next batch (expected after the last interval).
    private func mayWait(_ batch: ShareBatch, at now: ContinuousClock.Instant) -> Bool {
        let interval = state.withLock { state -> Duration? in
            defer { state.lastBatchAt = now }
            if let last = state.lastBatchAt { state.interval = now - last }
            return state.interval
        }
        guard let syncDelay, let share = batch.share, !batch.events.isEmpty,
              batch.events.allSatisfy({ $0.shareID == share.id && !$0.isFinal }),
              !state.withLock({ $0.waiters.keys.contains { $0 <= batch.through } }) else { return false }
        let heldSince = held.withLock { $0.since } ?? now
        return now - heldSince + (interval ?? .zero) < syncDelay
    }

    /// Keeps `batch` until it is committed; with `armingTimer`, the first one held arms the
    /// deadline's timer. Returns its number.
    private func hold(_ batch: ShareBatch, at now: ContinuousClock.Instant, armingTimer: Bool) -> Int {
        held.withLock { held in
            held.batches.append((batch, now))
            if armingTimer, held.timer == nil, let syncDelay { armCommitTimer(after: syncDelay, &held) }
            return held.handedOn + held.batches.count - 1
        }
    }

    /// Runs `commitHeldOnTime` after `delay`: on the timer's thread, then on the journal's (no hop
    /// through the cooperative pool).
    private func armCommitTimer(after delay: Duration, _ held: inout Held) {
        guard let journal else { return }
        if let timer = held.timer { DeadlineTimer.cancel(timer) }
        held.timer = DeadlineTimer.schedule(after: delay) { [journal] in
            Task(executorPreference: journal.taskExecutor) { await self.commitHeldOnTime() }
        }
    }

    /// The deadline's timer: commits the batches held and hands them on; when the journal cannot
    /// be written, they wait for the next commit (or this again, a backoff later).
    private func commitHeldOnTime() async {
        do {
            try await commitHeldOnce()
            state.withLock { $0.failure = nil }
        } catch {
            log.limited(.error, key: "journal sync", "\(error); the updates waiting for it are held until it can be written") { count, window in
                "journal: \(count.thousandsSeparated) more failure(s) to write held updates in the last \(window.shortText)"
            }
            if error != .closed, !state.withLock({ $0.finished }) { held.withLock { armCommitTimer(after: maximumRetryWait, &$0) } }
        }
    }

    /// Commits every batch held in one transaction and hands them on (at once without a journal).
    /// - Throws: the journal's error; the batches stay held.
    private func commitHeldOnce() async throws(JournalError) {
        let events = try await journal?.commit(heldBatches, then: handOn) ?? handOn(heldBatches())
        if !events.isEmpty { await onEvents(events) }
    }

    /// The batches held, in order (in the journal's isolation, just before they are committed).
    private func heldBatches() -> [ShareBatch] {
        held.withLock { $0.batches.map(\.batch) }
    }

    /// Hands on, in order, the first `committed.count` held batches (in the journal's isolation,
    /// just after they were committed): their events to standard output and the runners, their
    /// inputs to the callers waiting. Returns the events.
    private func handOn(_ committed: [ShareBatch]) -> [ShareEvent] {
        guard let through = committed.last?.through else { return [] }
        let events = held.withLock { held -> [ShareEvent] in
            held.batches.removeFirst(committed.count)
            held.handedOn += committed.count
            if let timer = held.timer {
                DeadlineTimer.cancel(timer)
                held.timer = nil
            }
            // Batches held since (none in livelocd, whose loop runs on the journal's thread): their own deadline.
            if let since = held.since, let syncDelay { armCommitTimer(after: since + syncDelay - .now, &held) }
            let events = committed.flatMap(\.events)
            stdout?.write(events)
            for runner in runners where !events.isEmpty { runner.wake() }
            return events
        }
        resumeWaiters(through: through)
        return events
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

    /// The runners' views, for `liveloc status`, with `activeShare`'s link where a destination has one.
    package func destinationStatus(activeShare: ShareID? = nil) async -> [DestinationStatus] {
        var result: [DestinationStatus] = []
        for runner in runners { result.append(await runner.status(activeShare: activeShare)) }
        return result
    }

    /// Commits the held batches, `through` the loop's own (its number), in one transaction and hands
    /// them on, retrying while the journal fails (the loop waits, and with it the source: no fix
    /// becomes an event that could be lost); false when cancelled first. Without a journal, hands
    /// them on.
    private func commitHeld(through number: Int) async -> Bool {
        var failures = 0
        while held.withLock({ $0.handedOn <= number }) {
            do {
                try await commitHeldOnce()
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
                    let holding = held.withLock { $0.batches.reduce(0) { $0 + $1.batch.events.count } }
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
        return true
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
