import Locking

/// A value every part that logs is handed (never a closure): its lines, each with a level, go to
/// one `LogHandler`; lines below `level` cost nothing (the message is an autoclosure, evaluated only
/// when the line is written). Lines that can repeat per event (a refused payload, a refused caller)
/// go through `limited`: one `RateLimitedLog` per logger, shared by its copies (a copy with another
/// `level` included), so that a process that makes one logger has one limiter.
package struct Logger: Sendable {
    /// The least severe level written: `info` writes info, notice, warning and error.
    package var level: LogLevel
    private let handler: any LogHandler
    private let limiter: RateLimitedLog

    /// - Parameter rateWindow: how long `limited` counts a kind's lines after writing one.
    package init(handler: any LogHandler, level: LogLevel = .info, rateWindow: Duration = .seconds(60)) {
        self.handler = handler
        self.level = level
        limiter = RateLimitedLog(window: rateWindow) { level, line in handler.write(level, line) }
    }

    /// Writes `message` at `level` when the logger's level lets it through.
    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        handler.write(level, message())
    }

    /// Per-fix and per-request detail.
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// A change of state worth a line: a source's fix mode, a resumed queue.
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// A normal but significant event: a share started or ended, a destination connected, ready.
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    /// Something failed and is retried or worked around: a delivery, a refused caller.
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Something stopped: a destination disabled, a journal that cannot be written, start-up.
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    /// A line that can repeat without end, at `level`: written at once the first time its `key` comes
    /// up in a window (`window`, else the logger's `rateWindow`), otherwise counted (and `message`
    /// not evaluated); the window's end writes `summary(count, window)` at the same level (see
    /// `RateLimitedLog`).
    package func limited(_ level: LogLevel, key: String, window: Duration? = nil, _ message: @autoclosure () -> String,
                         summary: @escaping @Sendable (_ count: Int, _ window: Duration) -> String) {
        guard level >= self.level else { return }
        limiter(level, key, window: window, message(), summary: summary)
    }

    /// The window of a line written for each of something a person does now and then (a share
    /// started or ended): every one is written while they come no faster than about one a second,
    /// and a flood of them writes a line and a count a second.
    package static let humanPaceWindow: Duration = .seconds(1)

    /// The process's logger, as `bootstrap` set it; before any bootstrap, standard error at `info`
    /// under the program's own name.
    package static var shared: Logger { bootstrapped.withLock { $0 } }

    /// Sets the process's logger, once, at start-up (the executables' `main`, after the options that
    /// give its level are read).
    package static func bootstrap(_ logger: Logger) { bootstrapped.withLock { $0 = logger } }

    private static let bootstrapped = Locked(Logger(handler: StandardErrorLogHandler(program: programName)))

    /// The name the program was started under, without its directory.
    private static var programName: String {
        CommandLine.arguments.first.flatMap { $0.split(separator: "/").last.map(String.init) } ?? "livelocd"
    }

    /// A logger that writes nothing (tests of parts that log, benches).
    package static let silent = Logger(handler: SilentLogHandler(), level: .error)
}
