import ArgumentParsing
import SystemIO

/// One `liveloc` subcommand.
protocol Command: Sendable {
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Runs with the words after the command name; returns the exit status.
    /// Throws `UsageError` (exit 2) or any other error (exit 1), printed as one line.
    static func run(_ words: [String]) async throws -> Int32
}

/// A failure that already names its context, printed as one line with the given exit status.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    var exitStatus: Int32 = 1

    init(_ description: String, exitStatus: Int32 = 1) {
        self.description = description
        self.exitStatus = exitStatus
    }
}

/// Writes one line to stderr, prefixed with the program name, at the error level (under the journal,
/// with its priority: `Logger.shared`, as `main` bootstrapped it).
func printError(_ message: String) {
    Logger.shared.error(message)
}
