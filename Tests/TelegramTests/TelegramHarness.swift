import Delivery
import Foundation
import Journal
import LiveLocation
import Pipeline
import Locking
import Telegram
import TestSupport

/// The Telegram destination as the daemon runs it (TelegramDestination driven by a
/// DestinationRunner over a Journal) against the loopback Bot API contract server.
final class TelegramHarness: Sendable {
    static let token = "123456789:AAH-loopback_Token"
    let directory: URL
    let tokenFile: String
    let api: BotAPIServer
    let chat: TelegramChat
    let log = LogLines()
    let retry: RetryPolicy
    private let running = Locked<(journal: Journal, runner: DestinationRunner, task: Task<Void, any Error>)?>(nil)
    private let batches = Locked<UInt64>(0)

    /// Starts the Bot API server (see `BotAPIServer.start` for the parameters) and the destination.
    init(chat: TelegramChat = .id(42), chats: [String]? = nil, script: [String] = [], livePeriodScale: Double = 1,
         serverToken: String = TelegramHarness.token,
         retry: RetryPolicy = RetryPolicy(base: .milliseconds(50), cap: .milliseconds(500))) async throws {
        self.retry = retry
        directory = try Paths.temporaryDirectory("telegram")
        tokenFile = directory.appendingPathComponent("token").path
        try "\(Self.token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        api = try await BotAPIServer.start(token: serverToken, records: directory.appendingPathComponent("calls.jsonl"),
                                           chats: chats, script: script, livePeriodScale: livePeriodScale)
        self.chat = chat
        try startRunner()
    }

    /// A new destination, journal and runner on the same state directory (as after a restart).
    func startRunner() throws {
        let log = self.log
        let configuration = try TelegramConfiguration(token: BotToken.load(fromFile: tokenFile), chat: chat, apiURL: api.apiURL)
        let destination = try TelegramDestination(configuration: configuration, log: log.logger)
        let journal = try Journal(directory: directory.appendingPathComponent("state").path,
                                  destinations: [destination.identity: destination.queue], log: log.logger)
        let runner = DestinationRunner(destination: destination, journal: journal,
                                       retry: retry, log: log.logger)
        let task = Task { try await runner.run() }
        running.withLock { $0 = (journal, runner, task) }
    }

    /// Stops the runner and closes the journal (what a graceful stop does).
    func stopRunner() async {
        guard let (journal, _, task) = running.withLock({ current in defer { current = nil }; return current }) else { return }
        task.cancel()
        _ = try? await task.value
        await journal.close()
    }

    /// Commits `events` as one batch and wakes the runner.
    func commit(_ events: [ShareEvent]) async throws {
        guard let (journal, runner, _) = running.withLock({ $0 }) else { return }
        let number = batches.withLock { $0 += 1; return $0 }
        try await journal.commit(ShareBatch(events: events, share: nil, through: number))
        runner.wake()
    }

    /// Commits each event as a batch of its own, `interval` apart.
    func commit(_ events: [ShareEvent], every interval: Duration) async throws {
        for event in events {
            try await commit([event])
            try await Task.sleep(for: interval)
        }
    }

    func status() async -> DestinationStatus? {
        guard let runner = running.withLock({ $0?.runner }) else { return nil }
        return await runner.status()
    }

    /// Waits (at most `timeout`, every 20 ms) until the runner's status satisfies `condition`.
    @discardableResult
    func waitForStatus(timeout: Duration = .seconds(20), until condition: (DestinationStatus) -> Bool) async -> DestinationStatus? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let status = await status()
            if let status, condition(status) || ContinuousClock.now >= deadline { return status }
            if status == nil || ContinuousClock.now >= deadline { return status }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    func stop() async {
        await stopRunner()
        api.stop()
    }
}


/// A share's events: `updates` active updates walking north at 10 m/s, then (unless `end` is false)
/// the final update and `ended`. `positionsFrom` numbers the first position (for a share's later part).
func telegramShare(_ id: ShareID, updates: Int, from first: Int = 1, duration: Duration = .seconds(900), end: Bool = true,
                   moving: Bool = true) -> [ShareEvent] {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)
    func location(_ index: Int, active: Bool) -> LiveLocation {
        LiveLocation(latitude: 48.1 + (moving ? Double(index) * 0.0001 : 0), longitude: 11.5,
                     lastUpdateAt: start + .seconds(index), startedAt: start,
                     expiresAt: active ? start + duration : start + .seconds(index), isActive: active,
                     accuracyMeters: 4, speedMetersPerSecond: moving ? 10 : 0, courseDegreesTrue: 0)
    }
    var events = (first..<(first + updates)).map { ShareEvent.updated(shareID: id, seq: $0, location: location($0, active: true)) }
    if end {
        let last = first + updates
        events.append(.updated(shareID: id, seq: last, location: location(last, active: false)))
        events.append(.ended(shareID: id, seq: last + 1, reason: .stopped))
    }
    return events
}
