import Foundation
import Testing
import TestSupport

/// `liveloc status` against the real daemon: the bubble's line, then the share, source and sinks.
@Suite(.serialized) struct StatusAtAGlanceTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test func statusShowsNoShareThenTheLiveShareThenThatItEnded() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        defer { daemon.send(SIGKILL) }

        // "ready" comes before the replay's first fix is decoded (slower under a sanitizer): ask
        // again, at most 50 times 100 ms, until the source has one.
        var before = try await harness.liveloc(["status"])
        for _ in 0..<50 where before.stdoutLines.dropFirst().first?.contains("no fix") == true {
            try await Task.sleep(for: .milliseconds(100))
            before = try await harness.liveloc(["status"])
        }
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdoutLines.first == "No live location since livelocd started · liveloc start --duration 15m|1h|8h shares one")
        #expect(before.stdoutLines.dropFirst().first?.hasPrefix("  source    replay · connected · fix") == true, "\(before.stdout)")
        #expect(before.stdoutLines.last == "  stdout    0 delivered")

        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { jsonObject($0)?["shareId"] as? String == id && jsonObject($0)?["seq"] as? Int == 2 }
        let active = try await harness.liveloc(["status"]).stdoutLines
        #expect(active.count == 6, "\(active)")
        let headline = try #require(active.first)
        #expect(headline.wholeMatch(of: /Live location · updated (just now|\d+ s ago) · 1[0-5] min left/) != nil, "\(headline)")
        #expect(active[1].hasPrefix("  share     \(id.prefix(8)) · started 2026-03-14T08:"))
        #expect(active[2].wholeMatch(of: /\  ends      2026-03-14T08:\d\d:\d\d\.\d{3}Z/) != nil, "\(active[2])")
        #expect(active[3].wholeMatch(of: /\  position  48\.\d+, 11\.\d+ at 2026-03-14T08:\d\d:\d\d\.\d{3}Z/) != nil, "\(active[3])")
        #expect(active[4].hasPrefix("  source    replay · connected · fix"))
        #expect(active[5].wholeMatch(of: /\  stdout    \d+ delivered/) != nil)

        #expect(try await harness.liveloc(["stop"]).status == 0)
        let after = try await harness.liveloc(["status"]).stdoutLines
        #expect(after.first?.wholeMatch(of: /Live location ended · (just now|\d+ s ago) · stopped/) != nil, "\(after)")
        #expect(after.dropFirst().first?.hasPrefix("  share     \(id.prefix(8)) · 2026-03-14T08:") == true)
        // --json is the protocol's status, as before (plus `ended` once a share has ended).
        let json = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        #expect(json["share"] == nil && json["source"] is [String: Any] && json["sinks"] is [Any] && json["clock"] is String)
        #expect((json["ended"] as? [String: Any])?["reason"] as? String == "stopped")
    }

    @Test func watchPrintsABlockEverySecondUntilInterruptedWhenNotATerminal() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        defer { daemon.send(SIGKILL) }
        let watch = try await DaemonProcess(Paths.executable("liveloc"), ["status", "--watch", "--socket", harness.socketPath])
        // Three blocks: the first at once, then one a second (waited for up to 30 s on a loaded machine).
        for _ in 0..<300 where watch.lines(.stdout).filter({ $0.hasPrefix("No live location") }).count < 3 {
            try await Task.sleep(for: .milliseconds(100))
        }
        watch.send(SIGINT)
        #expect(await watch.waitForExit() == 0)
        let lines = watch.lines(.stdout)
        #expect(!lines.joined().contains("\u{1B}"), "no terminal control sequences into a pipe")
        // Blocks of 3 lines (headline, source, stdout) separated by an empty line.
        #expect(lines.count >= 11 && lines[3].isEmpty && lines[7].isEmpty, "\(lines)")
    }

    @Test func watchRedrawsInPlaceOnATerminal() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        defer { daemon.send(SIGKILL) }
        // The first block, then for each refresh: cursor up 3 lines, to the line's start, clear below.
        let redraw = "\u{1B}[3A\r\u{1B}[J"
        let output = try await onThread {
            try runOnTerminal(Paths.executable("liveloc").path, ["status", "--watch", "--socket", harness.socketPath],
                              timeout: 30) { String(decoding: $0, as: UTF8.self).components(separatedBy: redraw).count >= 3 }
        }
        let text = String(decoding: output.bytes, as: UTF8.self)
        #expect(text.hasPrefix("No live location since livelocd started"), "\(text.debugDescription)")
        #expect(text.components(separatedBy: redraw).count >= 3, "\(text.debugDescription)")
        #expect(output.status == 0)
    }
}

/// Runs `path ARGS` with its stdout on a new pseudo-terminal until what the terminal received
/// satisfies `done` (or `timeout` seconds passed), then sends SIGINT and returns what the terminal
/// received and the exit status. Blocking: call it on a thread.
func runOnTerminal(_ path: String, _ arguments: [String], timeout: Double,
                   until done: ([UInt8]) -> Bool) throws -> (bytes: [UInt8], status: Int32) {
    // posix_openpt and friends are not visible from Swift's Glibc: /dev/ptmx and its two ioctls
    // (Linux's generic encoding: TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, int)).
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { throw POSIXError(.EIO) }
    defer { close(master) }
    var unlock: CInt = 0
    var number: CInt = 0
    guard ioctl(master, UInt(0x4004_5431), &unlock) == 0, ioctl(master, UInt(0x8004_5430), &number) == 0 else {
        throw POSIXError(.EIO)
    }
    let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    guard slave >= 0 else { throw POSIXError(.EIO) }
    // Raw output: no "\n" to "\r\n" translation, so the bytes are the program's own.
    var attributes = termios()
    tcgetattr(slave, &attributes)
    cfmakeraw(&attributes)
    tcsetattr(slave, TCSANOW, &attributes)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardOutput = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.runAsTestChild()
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline, !done(received) {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 100) > 0 else { continue }
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { break }
        received += buffer[..<count]
    }
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    return (received, process.terminationStatus)
}
