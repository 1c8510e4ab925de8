import Delivery
import HTTP
import Journal
import Pipeline
import Webhook
import Foundation
import LiveLocation
import Locking
import SystemIO
import TestSupport

/// A temporary directory (the destinations' journal) with a secret file and a receiver records file.
struct WebhookFixture {
    let directory: URL
    let secretFile: URL
    let secretText: String
    let records: URL
    let log = LogLines()

    init(_ label: String = "webhook") throws {
        directory = try Paths.temporaryDirectory(label)
        secretText = Self.newSecretText()
        secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("# test secret\n\(secretText)\n", to: secretFile)
        records = directory.appendingPathComponent("records.jsonl")
    }

    static func newSecretText() -> String {
        "whsec_" + Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// Fast retries so tests run in milliseconds: 20 ms doubling to 200 ms.
    func configuration(url: String, timeout: Duration = .seconds(5), backlog: BacklogPolicy = .all,
                       maxEvents: Int = 100_000, maxBytes: Int = 64 << 20, caFile: String? = nil) throws -> WebhookConfiguration {
        WebhookConfiguration(
            url: url, secrets: try WebhookSecret.load(fromFile: secretFile.path),
            caFile: caFile, timeout: timeout, backlog: backlog, maxEvents: maxEvents, maxBytes: maxBytes,
            retry: RetryPolicy(base: .milliseconds(20), cap: .milliseconds(200)))
    }

    /// A sink whose journal is in `journalDirectory` (by default the fixture's directory), open
    /// until its `close()`.
    func sink(_ configuration: WebhookConfiguration, journalDirectory: String? = nil) throws -> WebhookSink {
        try WebhookSink(configuration: configuration, directory: journalDirectory ?? directory.path, log: log.logger)
    }

    /// A sink (see `sink`) for `body`, closed afterwards whether `body` returned or threw: its journal's
    /// lock is free again and its thread ends.
    func withSink<T>(_ configuration: WebhookConfiguration, journalDirectory: String? = nil,
                     _ body: (WebhookSink) async throws -> T) async throws -> T {
        let sink = try self.sink(configuration, journalDirectory: journalDirectory)
        return try await withCleanup { try await body(sink) } cleanup: { await sink.close() }
    }

    func startReceiver(port: Int = 0, script: [String] = [], fallback: String = "200") async throws -> WebhookReceiver {
        try await WebhookReceiver.start(secretFile: secretFile, records: records, port: port, script: script, fallback: fallback)
    }

    /// A loopback port where nothing listens (a receiver bound it, then stopped), and its URL.
    func closedPort() async throws -> (port: Int, url: String) {
        let receiver = try await WebhookReceiver.start(
            secretFile: secretFile, records: directory.appendingPathComponent("unused.jsonl"))
        receiver.stop()
        return (receiver.port, receiver.url)
    }
}

/// A whole share: `updates` active updates, the final update, and `ended`.
func shareEvents(updates: Int, id: ShareID = .random()) -> [ShareEvent] {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)
    let expiry = start + .seconds(3600)
    func location(_ index: Int, active: Bool) -> LiveLocation {
        LiveLocation(latitude: 48.85 + Double(index) * 0.0001, longitude: 2.35, lastUpdateAt: start + .seconds(index),
                     startedAt: start, expiresAt: active ? expiry : start + .seconds(index), isActive: active,
                     accuracyMeters: 4.5)
    }
    var events = (1...max(updates, 1)).prefix(updates).map { ShareEvent.updated(shareID: id, seq: $0, location: location($0, active: true)) }
    events.append(.updated(shareID: id, seq: updates + 1, location: location(updates + 1, active: false)))
    events.append(.ended(shareID: id, seq: updates + 2, reason: .stopped))
    return events
}

func webhookID(_ event: ShareEvent) -> String { "evt_\(event.shareID.rawValue)_\(event.seq)" }

/// Runs the sink's delivery loop around `body`, then cancels it and waits for it to return.
@discardableResult
func whileRunning<T: Sendable>(_ sink: WebhookSink, _ body: () async throws -> T) async throws -> T {
    let loop = Task { try await sink.run() }
    do {
        let result = try await body()
        loop.cancel()
        try await loop.value
        return result
    } catch {
        loop.cancel()
        _ = try? await loop.value
        throw error
    }
}

/// Waits (at most `timeout`, looking every 10 ms) until the sink's status satisfies `condition`.
@discardableResult
func waitForStatus(_ sink: WebhookSink, timeout: Duration = .seconds(20),
                   until condition: (WebhookStatus) -> Bool) async -> WebhookStatus {
    let deadline = ContinuousClock.now + timeout
    while true {
        let status = await sink.status
        if condition(status) || ContinuousClock.now >= deadline { return status }
        try? await Task.sleep(for: .milliseconds(10))
    }
}

/// The webhook as the daemon runs it — a WebhookDestination driven by a DestinationRunner over a
/// Journal — behind the small interface these tests speak: queue an event (one committed batch),
/// run the delivery loop, read the counters.
final class WebhookSink: Sendable {
    let journal: Journal
    let runner: DestinationRunner
    private let batches = Locked<UInt64>(0)

    init(configuration: WebhookConfiguration, directory: String, log: Logger) throws {
        let destination = try WebhookDestination(configuration: configuration)
        journal = try Journal(directory: directory, destinations: [destination.identity: destination.queue], log: log)
        runner = DestinationRunner(destination: destination, journal: journal, retry: configuration.retry, log: log)
    }

    /// Commits `event` as a batch of its own and wakes the runner.
    func deliver(_ event: ShareEvent) async throws {
        let number = batches.withLock { $0 += 1; return $0 }
        try await journal.commit(ShareBatch(events: [event], share: nil, through: number))
        runner.wake()
    }

    func run() async throws { try await runner.run() }
    func drained() async { await runner.drained() }

    /// Closes the journal (what a graceful stop does): its acknowledgements are committed, its lock
    /// is released. A journal left open keeps its thread until nothing holds it any more (the
    /// acknowledgement timer holds it up to `Journal.ackFlushDelay`).
    func close() async { await journal.close() }

    var status: WebhookStatus {
        get async {
            let status = await runner.status()
            return WebhookStatus(pending: status.pending, delivered: status.acknowledged, failedAttempts: status.failedAttempts,
                                 dropped: status.dropped, state: status.state.rawValue, lastError: status.lastError)
        }
    }
}

/// The webhook's counters as `liveloc status` shows them.
struct WebhookStatus: Sendable {
    var pending: Int
    var delivered: Int
    var failedAttempts: Int
    /// Dropped by the backlog policy, the bound or a refusal.
    var dropped: Int
    var state: String
    var lastError: String?
    var disabled: Bool { state == "disabled" }
}
