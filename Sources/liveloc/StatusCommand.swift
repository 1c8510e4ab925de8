import ArgumentParsing
import Control
import JSONCoding
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// `liveloc status`: the share at a glance, then the source and the destinations.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show livelocd's share at a glance, its source and destinations"
    static let help = """
        usage: liveloc status [--watch] [--json] [--socket PATH] [--timeout DURATION]

        Shows the running livelocd's share the way a chat shows a live location:

          Live location · updated 4 s ago · 12 min left      (a share is active)
          Live location ended · 3 min ago · stopped          (none active; the last one ended)
          No live location since livelocd started · …        (none since livelocd started)

        then the share (id, start, updates sent, last position as shared), the source (state, age of
        the last fix, fixes received) and each destination (delivered; for a queue: state, pending,
        acknowledged, dropped, last error). Ages and time left are on livelocd's clock (the log's
        timeline for a replay).

        options:
          --watch             refresh once a second until Ctrl-C (redrawn in place on a terminal,
                              one block after another otherwise)
          --json              the status as one JSON object (the `status` of the protocol's reply)
        \(DaemonControl.optionsHelp)

        exit status: 0, 1 when livelocd is not running, refused or did not answer in time, 2 on
        bad usage (with --watch: 0 after Ctrl-C; while livelocd cannot be reached, the block says why).
        """

    static func run(_ words: [String]) async throws -> Int32 {
        let arguments = try Arguments(words, options: DaemonControl.options.merging(["--json": .flag, "--watch": .flag]) { $1 })
        guard arguments.operands.isEmpty else { throw UsageError("unexpected argument '\(arguments.operands[0])'") }
        if arguments.has("--watch") {
            guard !arguments.has("--json") else { throw UsageError("--watch and --json exclude each other") }
            await watch(arguments)
            return 0
        }
        let status = try fetch(arguments)
        if arguments.has("--json") {
            print(String(decoding: try JSON.encode(status), as: UTF8.self))
        } else {
            print(StatusText.lines(status).joined(separator: "\n"))
        }
        return 0
    }

    private static func fetch(_ arguments: Arguments) throws -> StatusReport {
        let response = try DaemonControl.send(.status, arguments)
        guard let status = response.status else { throw CommandFailure("livelocd sent no status") }
        return status
    }

    /// Shows the status once a second until SIGINT or SIGTERM. On a terminal each block replaces the
    /// one before (cursor up, clear to the end of the screen); otherwise the blocks follow each
    /// other, separated by an empty line.
    private static func watch(_ arguments: Arguments) async {
        let terminal = isatty(STDOUT_FILENO) == 1
        let signals = signalStream([SIGINT, SIGTERM])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals { break }
            }
            group.addTask {
                var previousLines = 0
                while !Task.isCancelled {
                    let lines: [String]
                    do { lines = StatusText.lines(try fetch(arguments)) } catch {
                        lines = [oneLineText("livelocd: \(error)")]
                    }
                    var text = ""
                    if previousLines > 0 { text += terminal ? "\u{1B}[\(previousLines)A\r\u{1B}[J" : "\n" }
                    text += lines.joined(separator: "\n") + "\n"
                    writeStandardOutput(text)
                    previousLines = lines.count
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Straight to the descriptor: `print` would hold the blocks back in stdio's buffer on a pipe.
    private static func writeStandardOutput(_ text: String) {
        var output = BufferedOutput(.standardOutput)
        try? output.write(Array(text.utf8))
        try? output.flush()
    }
}
