import Locking
import SystemIO

/// The log of a component under test: hand it `logger` (every level written); each line is kept
/// with its level, from any thread.
public final class LogLines: Sendable {
    /// The test's `LogHandler`: collects (level, message).
    private final class Collector: LogHandler, Sendable {
        let lines = Locked<[(level: LogLevel, message: String)]>([])
        func write(_ level: LogLevel, _ message: String) { lines.withLock { $0.append((level, message)) } }
    }

    private let collector = Collector()
    /// The logger that writes here; one per `LogLines`, so that its rate limit is one too.
    package let logger: Logger

    /// - Parameter rateWindow: the window of `logger.limited`.
    package init(rateWindow: Duration = .seconds(60)) {
        logger = Logger(handler: collector, level: .debug, rateWindow: rateWindow)
    }

    public convenience init() { self.init(rateWindow: .seconds(60)) }

    /// Collects one line, as `logger` does (for a part handed a handler's `write`, as `RateLimitedLog`).
    package func write(_ level: LogLevel, _ message: String) { collector.write(level, message) }

    /// The lines' messages, in order.
    public var all: [String] { collector.lines.withLock { $0.map(\.message) } }
    /// The lines with their levels, in order.
    package var entries: [(level: LogLevel, message: String)] { collector.lines.withLock { $0 } }
    public func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
    /// The level of the first line containing `text`; nil when none does.
    package func level(of text: String) -> LogLevel? { entries.first { $0.message.contains(text) }?.level }

    /// The messages once there are `count` of them, or when `limit` has passed (looking every 10 ms).
    package func waitFor(count: Int, within limit: Duration) async -> [String] {
        let deadline = ContinuousClock.now + limit
        while all.count < count && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        return all
    }
}
