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
