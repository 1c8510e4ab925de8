import Foundation
import Testing
import TestSupport

/// `liveloc status --watch` in a real terminal (tmux, at a fixed size), read back from the screen:
/// the block is redrawn in place (one headline, however long it runs), every line fits the width
/// (cut with …, never wrapped), and positions read to six decimals.
@Suite(.serialized) struct StatusWatchTerminalTests {
    /// The screen of a tmux session of `columns` x `rows` running `command`, after `seconds`: on a
    /// tmux server of its own (-L, killed at the end), driven by one shell script whose tmux server
    /// gets /dev/null for its descriptors (it would otherwise hold the script's output open).
    static func screen(columns: Int, rows: Int, command: String, seconds: Double) async throws -> [String] {
        let script = """
            server=livelocd-test-$$
            tmux() { /usr/bin/tmux -L "$server" -f /dev/null "$@"; }
            tmux new-session -d -s watch -x "$1" -y "$2" "$3" </dev/null >/dev/null 2>&1 || { echo "tmux: new-session failed"; exit 1; }
            sleep "$4"
            tmux capture-pane -p -t watch
            status=$?
            tmux kill-server >/dev/null 2>&1
            echo "--- end of screen $status"
            """
        let process = try await DaemonProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", "\(columns)", "\(rows)", command, "\(seconds)"],
                                        environment: ["TERM": "xterm-256color"])
        let end = try await process.waitForLine(.stdout, timeout: .seconds(30)) { $0.hasPrefix("--- end of screen") }
        try #require(end == "--- end of screen 0", "tmux capture-pane failed: \(process.lines(.stderr))")
        _ = await process.waitForExit(timeout: .seconds(10))
        return Array(process.lines(.stdout).dropLast())
    }

    @Test(arguments: [(80, 24), (120, 40)])
    func theWatchFitsTheTerminalAndRedrawsInPlace(columns: Int, rows: Int) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux (scripts/install-deps)")
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Paths.fixture("drive-multignss-1hz.nmea").path, speed: 10)
        let started = try await harness.liveloc(["start", "--duration", "15m"])
        try #require(started.status == 0, "\(started.stderr)")
        // Once the share has a position its block keeps one size: headline, share, end, position, source, stdout.
        var expectedLines = 0
        for _ in 0..<50 {
            let status = try await harness.liveloc(["status"]).stdoutLines
            if status.contains(where: { $0.hasPrefix("  position") }) { expectedLines = status.count; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try #require(expectedLines == 6, "the share got no position")

        // Four redraws and more: a stale line would have piled up by then.
        let screen = try await Self.screen(columns: columns, rows: rows,
                                           command: "\(Paths.executable("liveloc").path) status --watch --socket \(harness.socketPath)",
                                           seconds: 4.5)
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        let text = screen.joined(separator: "\n")
        let shown = screen.filter { !$0.isEmpty }
        #expect(shown.filter { $0.hasPrefix("Live location") }.count == 1, "headlines piled up:\n\(text)")
        #expect(shown.count == expectedLines, "expected \(expectedLines) lines, one per row:\n\(text)")
        #expect(shown.first?.hasPrefix("Live location · updated") == true, "\(text)")
        #expect(shown.dropFirst().allSatisfy { $0.hasPrefix("  ") }, "a line wrapped onto the next row:\n\(text)")
        #expect(shown.allSatisfy { $0.count < columns }, "a line fills the width:\n\(text)")
        let position = try #require(shown.first { $0.hasPrefix("  position") }, "\(text)")
        #expect(position.contains(/\s-?\d+\.\d{6}, -?\d+\.\d{6}\sat\s/), "\(position)")
        // Laid out for 80 columns: every line whole there too, the end time on a line of its own.
        #expect(!shown.contains { $0.hasSuffix("…") }, "at \(columns) columns every line fits whole:\n\(text)")
        #expect(shown.contains { $0.range(of: #"^  ends      \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"#, options: .regularExpression) != nil },
                "the end time is shown:\n\(text)")
    }
}
