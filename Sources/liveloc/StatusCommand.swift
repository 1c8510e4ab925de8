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
    /// one before in place (cursor up over it, clear to the end of the screen); its lines are cut to
    /// the terminal's width and its height (TIOCGWINSZ, read again for every block, so a resize is
    /// followed), so that no line wraps and the cursor goes back exactly over the block. Otherwise
    /// the blocks follow each other, whole, separated by an empty line.
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
                    let shown = terminal ? fitted(lines, to: Terminal.size(of: STDOUT_FILENO)) : lines
                    var text = ""
                    if previousLines > 0 { text += terminal ? "\u{1B}[\(previousLines)A\r\u{1B}[J" : "\n" }
                    text += shown.joined(separator: "\n") + "\n"
                    writeStandardOutput(text)
                    previousLines = shown.count
                    try? await Task.sleep(for: .seconds(1))
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The lines cut to fit a terminal of `size`: at most `columns - 1` characters each (the last
    /// column left free: a line that fills it leaves some terminals waiting to wrap), at most
    /// `rows - 1` lines (the cursor's line below them), the last kept line saying how many more
    /// there are. Unchanged without a size.
    static func fitted(_ lines: [String], to size: (columns: Int, rows: Int)?) -> [String] {
        guard let size else { return lines }
        let width = max(1, size.columns - 1)
        var kept = lines
        let height = max(1, size.rows - 1)
        if kept.count > height {
            kept = Array(kept.prefix(height - 1)) + ["  … \(lines.count - height + 1) more lines (a taller terminal shows them)"]
        }
        return kept.map { line in line.count <= width ? line : String(line.prefix(max(0, width - 1))) + "…" }
    }

    /// Straight to the descriptor: `print` would hold the blocks back in stdio's buffer on a pipe.
    private static func writeStandardOutput(_ text: String) {
        var output = BufferedOutput(.standardOutput)
        try? output.write(Array(text.utf8))
        try? output.flush()
    }
}
