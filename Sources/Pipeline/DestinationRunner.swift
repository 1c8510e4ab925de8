import Delivery
import Journal
import LiveLocation
import Locking
import Synchronization
import SystemIO

/// Drives one durable destination from its queue in the journal: takes its events in order, keeps at most
/// `queue.maxInFlight` events unacknowledged, and acts on each outcome — acknowledge, wait and send
/// again from the first unacknowledged event (capped jittered backoff, or the far end's wait), drop
/// a refused payload, or stop the destination until restart. Logs one line per change of state,
/// not one per event; refused payloads through the logger's rate limit (`Logger.limited`: one line,
/// then a count per window: a receiver refusing a backlog gave 2,501 lines in 5 s, issue 23).
///
/// An event walks one way: the dispatcher hands the runner the entries each commit queued for it
/// (`handOn`, JSON included) once they are on disk, and a runner that is caught up sends those
/// without reading them back. It reads its queue in the journal after a gap only: at start (what
/// an earlier run queued), after a retry (from the first unacknowledged event), when more was
/// handed on than it keeps (`handedLimit`, a long outage), and always under the `latest` backlog
/// policy (the queue drops stale updates, and is read as late as possible).
package actor DestinationRunner {
    package nonisolated let destination: any Destination
    private let journal: Journal
    private let retry: RetryPolicy
    private let log: Logger
    private let wakeSignal: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// The position of the last event handed to `send` (in flight or done).
    private var cursor: Int64 = 0
    /// Events read ahead from the queue (after `cursor`), so that a backlog costs one query per
    /// `readAhead` events, not one per event. Only with the `all` backlog policy: under `latest`,
    /// the queue itself drops stale updates and is read as late as possible.
    private var readAhead: [QueuedEvent] = []
    private static let readAheadLimit = 64
    /// The last read found fewer events than it asked for: the queue holds nothing after `cursor`
    /// until a `wake()` says a commit added some. Saves a read (two thread hops, to the journal's
    /// thread and back) after every delivery.
    private var readToEnd = false
    /// What the dispatcher handed on and the runner has not taken yet (see `handOn`).
    private let handed = Locked(Handed())
    /// The most events kept from `handOn` while the runner does not take them; more, and it reads
    /// its queue instead (they are there).
    package static let handedLimit = 256
    /// The state of the newest `delivered(state:)`: newer than the one an entry handed on carries
    /// (the journal's at its commit), when an acknowledgement came between.
    private var deliveredState: [UInt8]?
    private var inFlight: [(event: QueuedEvent, receipt: DeliveryReceipt)] = []
    private var state = DeliveryState.active
    private var failedAttempts = 0
    private var consecutiveFailures = 0
    private var lastError: String?
    private var drainWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0

    /// - Parameter log: the process's logger; its one rate limit (shared with the control server)
    ///   takes the lines that can repeat per event.
    package init(destination: any Destination, journal: Journal, retry: RetryPolicy = RetryPolicy(), log: Logger) {
        self.destination = destination
        self.journal = journal
        self.retry = retry
        self.log = log
        (wakeSignal, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Entries handed on and not taken yet, and whether the queue must be read instead (some were
    /// let go, or a `wake()` said nothing of what is new).
    private struct Handed {
        var events: [QueuedEvent] = []
        var mustRead = false
    }

    /// New events were committed to the queue: read it.
    package nonisolated func wake() {
        handed.withLock { $0.mustRead = true }
        wakeContinuation.yield()
    }

    /// `events` were committed to the queue (on disk: synced), in order, after those handed on
    /// before: the commit's result for this destination (`Journal.commit`). Kept for the runner
    /// without waiting for it; under the `latest` backlog policy, a `wake()`.
    package nonisolated func handOn(_ events: [QueuedEvent]) {
        guard !events.isEmpty else { return }
        let keeps = destination.queue.backlog == .all
        handed.withLock { handed in
            guard keeps, !handed.mustRead, handed.events.count + events.count <= Self.handedLimit else {
                handed.events.removeAll()
                handed.mustRead = true
                return
            }
            handed.events.append(contentsOf: events)
        }
        wakeContinuation.yield()
    }

    /// Once the runner has read its queue to the end: into `readAhead`, what was handed on after
    /// `cursor` (nothing else can be after it), or, when the queue must be read, `readToEnd` cleared.
    private func takeHandedOn() {
        let (events, mustRead) = handed.withLock { handed in
            defer { handed = Handed() }
            return (handed.events, handed.mustRead)
        }
        guard !mustRead else {
            readToEnd = false
            return
        }
        readAhead = events.reversed().filter { $0.position > cursor }
        guard let deliveredState else { return }
        for index in readAhead.indices { readAhead[index].destinationState = deliveredState }
    }

    /// Delivers until the task is cancelled (events in flight are then sent again by the next run).
    /// The destination's own `run` (its lasting connection, e.g. MQTT's) runs alongside and is
    /// cancelled after delivery stops, so that it disconnects cleanly last.
    /// - Throws: `JournalError` when the queue cannot be read (fatal), or the destination's `run` error.
    /// The runner runs on the destination's `executor` when it has one (see there), else on the
    /// journal's thread: the commit that queued an event wakes it there without a thread hop, and
    /// its reads and acknowledgements are jobs on the thread it runs on. An MQTT broker's PUBACK
    /// then wakes that one thread, not the process's pool as well (issue 22: wake-ups per fix).
    package func run() async throws {
        try await withTaskExecutorPreference(destination.executor ?? journal.taskExecutor) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.destination.run() }
                try await deliver()
                group.cancelAll()
                while try await group.next() != nil {}
            }
        }
    }

    private func deliver() async throws {
        var wakeups = wakeSignal.makeAsyncIterator()
        while !Task.isCancelled {
            if case .disabled = state {
                wakeDrainWaiters()
                while await wakeups.next(isolation: self) != nil {}
                return
            }
            var room = destination.queue.maxInFlight - inFlight.count
            while room > 0 {
                if readAhead.isEmpty, readToEnd { takeHandedOn() }
                if readAhead.isEmpty {
                    if readToEnd { break }
                    let limit = destination.queue.backlog == .all ? max(room, Self.readAheadLimit) : room
                    do {
                        readAhead = try await journal.pending(destination.identity, after: cursor, limit: limit)
                        readToEnd = readAhead.count < limit
                    } catch {
                        guard error.isLasting else { throw error }
                        // The journal's file is damaged or gone: this destination stops until the
                        // restart that moves it aside; the daemon goes on (status, stop, logs).
                        disable(reason: "\(error)")
                        break
                    }
                    readAhead.reverse()
                    if readAhead.isEmpty { break }
                }
                let event = readAhead.removeLast()
                inFlight.append((event, destination.send(event)))
                cursor = event.position
                room -= 1
            }
            if case .disabled = state { continue }
            guard let (event, receipt) = inFlight.first else {
                wakeDrainWaiters()
                if await wakeups.next(isolation: self) == nil { return }
                continue
            }
            guard let outcome = await receipt.outcome() else { return }
            guard let wait = await handle(outcome, of: event) else { continue }
            do { try await Task.sleep(for: wait) } catch { return }
        }
    }

    /// Returns once the queue is empty and nothing is in flight (at once if so), the destination is
    /// disabled, or the calling task is cancelled.
    package func drained() async {
        while !Task.isCancelled {
            if case .disabled = state { return }
            // A queue that cannot be read is not drained: the caller's timeout decides, not a guess.
            if inFlight.isEmpty, readAhead.isEmpty, (try? await journal.pending(destination.identity, after: cursor, limit: 1))?.isEmpty == true {
                return
            }
            let id = nextWaiter
            nextWaiter += 1
            await withTaskCancellationHandler {
                await withCheckedContinuation { drainWaiters[id] = $0 }
            } onCancel: {
                Task { await self.resumeWaiter(id) }
            }
        }
    }

    /// Waits until everything queued was delivered (`drained`), or `timeout`; true when it was.
    /// A runner is an actor: this is nonisolated, so that the timeout runs beside the wait.
    package nonisolated func drained(within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.drained(); return !Task.isCancelled }
            group.addTask { try? await Task.sleep(for: timeout); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func resumeWaiter(_ id: Int) {
        drainWaiters.removeValue(forKey: id)?.resume()
    }

    /// The runner's view for `liveloc status`; `activeShare`: the share whose link (if any) it shows.
    package func status(activeShare: ShareID? = nil) async -> DestinationStatus {
        let queue = await journal.queueStatus(destination.identity)
        return DestinationStatus(name: destination.name, state: state, link: destination.link,
                                 pending: queue?.pending ?? 0, acknowledged: queue?.acknowledged ?? 0,
                                 dropped: queue?.dropped ?? 0, failedAttempts: failedAttempts, lastError: lastError,
                                 keepsLatestOnly: destination.queue.backlog == .latest, shareLink: activeShare.flatMap(destination.shareLink(for:)))
    }

    /// Applies one outcome; returns how long to wait before going on, or nil to go on at once.
    private func handle(_ outcome: DeliveryOutcome, of event: QueuedEvent) async -> Duration? {
        let name = destination.name
        switch outcome {
        case .delivered(let newState):
            inFlight.removeFirst()
            if let newState { deliveredState = newState }
            journal.acknowledge(destination.identity, position: event.position, state: newState)
            log.debug("\(name): \(event.idempotencyKey) delivered")
            if consecutiveFailures > 0 {
                // A receiver failing every other event would say so with every event: rate-limited.
                let failures = consecutiveFailures
                log.limited(.notice, key: "\(name) delivering again", "\(name): delivering again after \(failures) failed attempt(s)") { count, window in
                    "\(name): delivering again after \(count.thousandsSeparated) more outage(s) in the last \(window.shortText)"
                }
            }
            consecutiveFailures = 0
            lastError = nil
            state = .active
            return nil
        case .refused(let reason):
            inFlight.removeFirst()
            journal.acknowledge(destination.identity, position: event.position, dropped: true)
            failedAttempts += 1
            lastError = reason
            state = .refusing
            log.limited(.warning, key: "refused by \(name)", "\(name): \(event.idempotencyKey) refused (\(reason)); dropped") { count, window in
                "\(name): \(count.thousandsSeparated) more events refused and dropped in the last \(window.shortText)"
            }
            return nil
        case .retry(let reason, let after):
            rewind(to: event)
            failedAttempts += 1
            consecutiveFailures += 1
            lastError = reason
            let wait = retry.delay(afterFailures: consecutiveFailures, retryAfter: after)
            if case .active = state {
                log.limited(.warning, key: "\(name) retrying", "\(name): \(event.idempotencyKey) not delivered (\(reason)); retrying with backoff") { count, window in
                    "\(name): \(count.thousandsSeparated) more outage(s) in the last \(window.shortText), the last: \(reason); retrying with backoff"
                }
            }
            state = .retrying
            return wait
        case .notYet(let after):
            rewind(to: event)
            return after
        case .disabled(let reason):
            disable(reason: reason)
            return nil
        }
    }

    /// Stops delivering until restart; the events stay queued.
    private func disable(reason: String) {
        inFlight.removeAll()
        readAhead.removeAll()
        state = .disabled
        lastError = reason
        log.error("\(destination.name): disabled: \(reason); its events stay queued until livelocd is restarted")
    }

    /// Sends everything again from `event` on (the receipts of the later ones are dropped).
    private func rewind(to event: QueuedEvent) {
        inFlight.removeAll()
        readAhead.removeAll()
        readToEnd = false
        cursor = event.position - 1
    }

    /// The queue was found empty with nothing in flight: every `drained()` looks again.
    private func wakeDrainWaiters() {
        let waiters = drainWaiters.values
        drainWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }
}

/// One destination as `liveloc status` shows it.
package struct DestinationStatus: Sendable, Equatable {
    package var name: String
    /// Whether it delivers; when `disabled`, `lastError` says why.
    package var state: DeliveryState
    package var link: LinkState?
    package var pending: Int
    package var acknowledged: Int
    package var dropped: Int
    package var failedAttempts: Int
    package var lastError: String?
    /// The queue keeps only the newest position (backlog `latest`, Telegram's edits): most of
    /// `dropped` are positions a newer one replaced before they were sent, not losses.
    package var keepsLatestOnly = false
    /// The active share's link (the `link` destination's; it holds the key).
    package var shareLink: String?
}
