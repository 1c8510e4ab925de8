/// Where a logger's lines go: the one extension point of logging, as swift-log's `LogHandler`.
/// Called from any thread; a line is one message without its newline.
package protocol LogHandler: Sendable {
    func write(_ level: LogLevel, _ message: String)
}

/// Discards every line.
package struct SilentLogHandler: LogHandler {
    package init() {}
    package func write(_ level: LogLevel, _ message: String) {}
}
