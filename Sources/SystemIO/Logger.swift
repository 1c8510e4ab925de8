#if canImport(Glibc)
import Glibc
#endif
import Locking

/// How much a log line matters, as sd-daemon(3) and syslog number it: under systemd each line
/// carries its priority (`<4>…`), so that `journalctl -p warning` shows warnings and errors only.
package enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// `error` is the most severe: a logger at `warning` writes errors and warnings.
    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue > rhs.rawValue }

    /// `debug`, `info`, `notice`, `warning`, `error`.
    package var description: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// The names, for an error or a help line: `debug, info, notice, warning or error`.
    package static let expected = "debug, info, notice, warning or error"

    /// The level of its name (`log.level`, `--log-level`); nil for any other text.
    package init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = level
    }
}

/// Where a logger's lines go: the one extension point of logging, as swift-log's `LogHandler`.
/// Called from any thread; a line is one message without its newline.
package protocol LogHandler: Sendable {
    func write(_ level: LogLevel, _ message: String)
}

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
    /// up in a window, otherwise counted (and `message` not evaluated); the window's end writes
    /// `summary(count, window)` at the same level (see `RateLimitedLog`).
    package func limited(_ level: LogLevel, key: String, _ message: @autoclosure () -> String,
                         summary: @escaping @Sendable (_ count: Int, _ window: Duration) -> String) {
        guard level >= self.level else { return }
        limiter(level, key, message(), summary: summary)
    }

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

/// Writes each line to standard error as `program: message` (one line, control characters escaped:
/// `writeErrorLine`). When standard error is the journal (`$JOURNAL_STREAM` names its device and
/// inode, as systemd sets it), each line starts with its priority, `<3>` to `<7>`, which journald
/// takes off and keeps as the entry's priority.
package struct StandardErrorLogHandler: LogHandler {
    package let program: String
    package let prefixesPriority: Bool

    /// - Parameter journalStream: `$JOURNAL_STREAM` (read from the environment by default).
    package init(program: String, journalStream: String? = getenv("JOURNAL_STREAM").map { String(cString: $0) }) {
        self.program = program
        prefixesPriority = journalStream.map(Self.isStandardError) ?? false
    }

    package func write(_ level: LogLevel, _ message: String) {
        writeErrorLine(program: prefixesPriority ? "<\(level.rawValue)>\(program)" : program, message)
    }

    /// Whether `journalStream` (`DEVICE:INODE`, decimal, as systemd sets it) is standard error's own
    /// file: a child whose standard error was redirected inherits the variable but not the stream.
    package static func isStandardError(_ journalStream: String) -> Bool {
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

/// Discards every line.
package struct SilentLogHandler: LogHandler {
    package init() {}
    package func write(_ level: LogLevel, _ message: String) {}
}
