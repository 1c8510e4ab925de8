import Delivery
import HTTP
import LiveLocation
import SystemIO

/// Delivers share events to one HTTP endpoint as signed Standard Webhooks POSTs: durably (SQLite
/// outbox), in order, one request in flight, at least once.
///
/// `deliver` stores the event and returns once it is committed; `run` is the delivery loop, which
/// sends the outbox's oldest event until it gets a 2xx, then removes it and goes on. Cancelling the
/// task running `run` stops it (an interrupted attempt is sent again, with the same webhook-id, by
/// the next run on the same outbox).
public actor WebhookSink: EventSink {
    private let configuration: WebhookConfiguration
    private let log: @Sendable (String) -> Void
    private let outbox: Outbox
    private let client: HTTPClient
    private let wakeSignal: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    private var running = false
    private var inFlight: Int64?
    private var counters: WebhookStatus
    private var loggedOverBound = false
    private var drainWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0

    /// Opens (or creates) the outbox and prepares the HTTP client; nothing is sent before `run()`.
    ///
    /// - Parameter log: receives one line per notable happening (failures, drops, disabling); never
    ///   a secret.
    /// - Throws: `WebhookError` (bad URL, no secret, the outbox cannot be opened or is locked by
    ///   another process, libcurl setup failed).
    public init(configuration: WebhookConfiguration, log: @escaping @Sendable (String) -> Void) throws {
        let lowered = configuration.url.lowercased()
        guard (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")), configuration.url.count > 8,
              !configuration.url.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" })
        else { throw WebhookError.invalidURL(configuration.url) }
        guard !configuration.secrets.isEmpty else { throw WebhookError.noSecret(path: nil) }
        self.configuration = configuration
        self.log = log
        outbox = try Outbox(path: configuration.outboxPath)
        client = try HTTPClient(url: configuration.url, caFile: configuration.caFile, timeout: configuration.timeout)
        (wakeSignal, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        counters = WebhookStatus(pending: outbox.count, pendingBytes: outbox.bytes, delivered: 0, failedAttempts: 0,
                                 consecutiveFailures: 0, superseded: 0, droppedOverBound: 0, rejected: 0,
                                 disabled: false, lastError: nil)
        if outbox.count > 0 {
            log("webhook: \(outbox.count) undelivered event(s) in outbox \(configuration.outboxPath); resuming")
        }
    }

    /// The sink's counters and state.
    public var status: WebhookStatus {
        var status = counters
        status.pending = outbox.count
        status.pendingBytes = outbox.bytes
        return status
    }

    /// Queues `event` durably (committed to the outbox, fsynced) and wakes the delivery loop.
    ///
    /// The webhook-id is `evt_<shareId>_<seq>`; queuing an event whose id is still queued does
    /// nothing. Throws `WebhookError.outbox` on any SQLite failure: fatal.
    public func deliver(_ event: ShareEvent) async throws {
        let kind: OutboxEntry.Kind = switch event {
        case .ended: .ended
        case .updated: event.isFinal ? .finalUpdate : .update
        }
        let entry = OutboxEntry(position: 0, webhookID: Self.webhookID(for: event),
                                body: Array(event.jsonLineBytes.dropLast()), kind: kind)
        let result = try outbox.enqueue(entry, shareID: event.shareID, policy: configuration.backlog,
                                        maxEvents: configuration.maxEvents, maxBytes: configuration.maxBytes,
                                        inFlight: inFlight)
        counters.superseded += result.superseded
        if result.droppedOverBound > 0 {
            counters.droppedOverBound += result.droppedOverBound
            if !loggedOverBound || counters.droppedOverBound % 1000 == 0 {
                log("webhook: outbox over its bound (\(configuration.maxEvents) events, \(configuration.maxBytes) bytes): "
                    + "dropped the oldest undelivered update(s); \(counters.droppedOverBound) dropped so far")
                loggedOverBound = true
            }
        }
        if result.overBoundWithOnlyFinals {
            log("webhook: outbox over its bound with only final updates and ended events left; keeping them")
        }
        if result.inserted { wake.yield() }
    }

    /// Returns once the outbox is empty (at once if it is), the endpoint is disabled (410), or the
    /// calling task is cancelled: for a one-shot share that should drain before the process exits.
    public func drained() async {
        guard outbox.count > 0, !counters.disabled, !Task.isCancelled else { return }
        let id = nextWaiterID
        nextWaiterID += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { drainWaiters[id] = $0 }
        } onCancel: {
            Task { await self.resumeDrainWaiter(id) }
        }
    }

    private func resumeDrainWaiter(_ id: Int) {
        drainWaiters.removeValue(forKey: id)?.resume()
    }

    private func resumeDrainWaitersIfDone() {
        guard outbox.count == 0 || counters.disabled else { return }
        let waiters = drainWaiters.values
        drainWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// The delivery loop: sends queued events in order until the task is cancelled, then returns.
    ///
    /// Throws `WebhookError.outbox` when the outbox fails (fatal), `.alreadyRunning` when another
    /// `run()` is active.
    public func run() async throws {
        guard !running else { throw WebhookError.alreadyRunning }
        running = true
        defer { running = false }
        var wakeups = wakeSignal.makeAsyncIterator()
        while !Task.isCancelled {
            if counters.disabled {
                // Only a restart sends again; queued events stay in the outbox meanwhile.
                while await wakeups.next(isolation: self) != nil {}
                return
            }
            guard let entry = try outbox.first() else {
                if await wakeups.next(isolation: self) == nil { return }
                continue
            }
            guard let wait = try await attempt(entry) else { continue }
            do { try await Task.sleep(for: wait) } catch { return }
        }
    }

    /// One attempt at the oldest event; the backoff to wait before the next, or nil to go on now.
    private func attempt(_ entry: OutboxEntry) async throws -> Duration? {
        let timestamp = WallClock().now.millisecondsSince1970 / 1000
        let signature = webhookSignature(id: entry.webhookID, timestamp: timestamp, body: entry.body,
                                         secrets: configuration.secrets)
        inFlight = entry.position
        let outcome = await client.post(body: entry.body, headers: [
            "webhook-id: \(entry.webhookID)",
            "webhook-timestamp: \(timestamp)",
            "webhook-signature: \(signature)",
        ])
        inFlight = nil
        let failure: String
        var retryAfter: Duration?
        switch outcome {
        case .cancelled:
            return nil
        case .response(let status, _) where (200..<300).contains(status):
            try outbox.remove(position: entry.position)
            counters.delivered += 1
            if counters.consecutiveFailures > 0 {
                log("webhook: delivering again after \(counters.consecutiveFailures) failed attempt(s)")
            }
            counters.consecutiveFailures = 0
            counters.lastError = nil
            resumeDrainWaitersIfDone()
            return nil
        case .response(410, _):
            counters.disabled = true
            counters.lastError = "HTTP 410 Gone"
            log("webhook: endpoint answered 410 Gone to \(entry.webhookID); endpoint disabled, "
                + "\(outbox.count) event(s) kept in the outbox until restart")
            resumeDrainWaitersIfDone()
            return nil
        case .response(let status, let after) where (300..<400).contains(status):
            failure = "HTTP \(status): redirect not followed (misconfigured webhook URL?)"
            retryAfter = after
        case .response(let status, let after) where Self.retryable4xx.contains(status) || status >= 500:
            failure = "HTTP \(status)"
            retryAfter = after
        case .response(let status, let after):
            // A permanent refusal of this payload: a non-final update is dropped so it cannot block
            // the queue; a share's final update and ended are never dropped, so they are retried.
            if entry.kind == .update {
                try outbox.remove(position: entry.position)
                counters.rejected += 1
                counters.failedAttempts += 1
                counters.lastError = "HTTP \(status)"
                log("webhook: endpoint refused \(entry.webhookID) with HTTP \(status); update dropped")
                resumeDrainWaitersIfDone()
                return nil
            }
            failure = "HTTP \(status) (final event kept, retrying)"
            retryAfter = after
        case .transportError(let message):
            failure = message
        }
        counters.failedAttempts += 1
        counters.consecutiveFailures += 1
        counters.lastError = failure
        let wait = configuration.retry.delay(afterFailures: counters.consecutiveFailures, retryAfter: retryAfter)
        log("webhook: \(entry.webhookID) attempt failed: \(failure); retrying in \(wait.readable)")
        return wait
    }

    /// 4xx answers that describe the endpoint's state rather than the payload: retried like 5xx.
    private static let retryable4xx: Set<Int> = [401, 403, 404, 408, 409, 423, 425, 429]

    /// The Standard Webhooks `webhook-id` of an event: stable, so a receiver can deduplicate.
    static func webhookID(for event: ShareEvent) -> String {
        "evt_\(event.shareID.rawValue)_\(event.seq)"
    }
}
