import Foundation
import Testing
import TestSupport

/// livelocd's log as journald and a reader see it: each line with its sd-daemon priority (`<4>`
/// for a warning) when standard error is the journal, and `log.level` / `--log-level` choosing the
/// least severe line written.
///
/// journald itself does not run on the test machine (no /run/systemd/journal), and starting one
/// would change the machine for everything else running on it; so the journal's side is what
/// systemd gives a service: `JOURNAL_STREAM` naming the device and inode of the daemon's standard
/// error (here a file, its numbers taken with stat), as journald's stream reader takes `<N>` off.
@Suite struct DaemonLogLevelTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path
    /// A group no machine has: the daemon warns that only root and its own user may control it.
    static let missingGroup = "no-such-group-livelocd-log-test"

    /// What one run wrote to standard error, and how it ended.
    struct Run {
        var lines: [String]
        var exitStatus: Int32

        /// The line containing `text`, if one does.
        func line(_ text: String) -> String? { lines.first { $0.contains(text) } }
    }

    /// livelocd started with standard error going to a file of its own (`errorPath`), killed if
    /// still running 40 s on.
    final class Started: Sendable {
        let process: Process
        let errorPath: String
        private let errorFile: FileHandle
        private let killer: Task<Void, any Error>

        /// - Parameter environment: gets the file's `DEVICE:INODE`, returns what to add to the
        ///   daemon's environment (`JOURNAL_STREAM` is never inherited from the test's own).
        init(_ harness: DaemonHarness, _ arguments: [String], environment: (String) -> [String: String]) async throws {
            errorPath = harness.directory.appendingPathComponent("stderr.log").path
            #expect(FileManager.default.createFile(atPath: errorPath, contents: nil))
            var file = stat()
            try #require(stat(errorPath, &file) == 0)
            errorFile = try #require(FileHandle(forWritingAtPath: errorPath))
            let process = Process()
            process.executableURL = Paths.executable("livelocd")
            process.arguments = arguments
            var variables = ProcessInfo.processInfo.environment
            variables["JOURNAL_STREAM"] = nil
            variables.merge(environment("\(UInt64(file.st_dev)):\(UInt64(file.st_ino))")) { $1 }
            process.environment = variables
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errorFile
            try await process.runAsTestChild()
            self.process = process
            killer = Task {
                try await Task.sleep(for: .seconds(40))
                kill(process.processIdentifier, SIGKILL)
            }
        }

        /// Waits for the exit; the exit status and what was written.
        func finish() async throws -> Run {
            try await onThread { self.process.waitUntilExit() }
            killer.cancel()
            try? errorFile.close()
            return Run(lines: DaemonLogLevelTests.lines(of: errorPath), exitStatus: process.terminationStatus)
        }
    }

    /// Runs livelocd over the bundled drive with standard error going to a file of its own: waits
    /// until the control socket answers, starts and stops a share (notice lines), then stops the
    /// daemon with SIGTERM.
    static func run(extra: [String] = [], environment: (String) -> [String: String] = { _ in [:] }) async throws -> Run {
        let harness = try DaemonHarness()
        let daemon = try await Started(harness, harness.arguments(log: drive, extra: ["--control.group", missingGroup] + extra),
                                 environment: environment)
        // Ready when the control socket answers (at `warning`, no "ready:" line says so); 20 s at most.
        let deadline = ContinuousClock.now + .seconds(20)
        var answered = false
        while !answered, daemon.process.isRunning, ContinuousClock.now < deadline {
            answered = try await harness.liveloc(["status"]).status == 0
            if !answered { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answered, "livelocd did not answer: \(lines(of: daemon.errorPath))")
        if answered {
            let start = try await harness.liveloc(["start", "--duration", "15m"])
            #expect(start.status == 0, "\(start.stderr)")
            let stop = try await harness.liveloc(["stop"])
            #expect(stop.status == 0, "\(stop.stderr)")
        }
        daemon.process.terminate()  // SIGTERM
        return try await daemon.finish()
    }

    static func lines(of path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func underTheJournalEachLineStartsWithItsPriority() async throws {
        let run = try await Self.run { deviceAndInode in ["JOURNAL_STREAM": deviceAndInode] }
        #expect(run.exitStatus == 0, "\(run.lines)")
        #expect(!run.lines.isEmpty)
        for line in run.lines {
            #expect(line.wholeMatch(of: /<[3-7]>livelocd: .+/) != nil, "\(line)")
        }
        // A warning (the control group is missing), notices (ready, a share started and stopped,
        // the signal, stopped) and an info line (the control socket's limits).
        #expect(run.line("control group '\(Self.missingGroup)' does not exist")?.hasPrefix("<4>livelocd: ") == true, "\(run.lines)")
        #expect(run.line("ready:")?.hasPrefix("<5>livelocd: ready: source replay") == true, "\(run.lines)")
        #expect(run.line("started for 15m")?.hasPrefix("<5>livelocd: share ") == true, "\(run.lines)")
        #expect(run.line("SIGTERM: shutting down")?.hasPrefix("<5>") == true, "\(run.lines)")
        #expect(run.line("stopped; no share was active")?.hasPrefix("<5>") == true, "\(run.lines)")
        #expect(run.line("control socket:")?.hasPrefix("<6>livelocd: control socket: ") == true, "\(run.lines)")
    }

    @Test func underTheJournalABadConfigurationIsAnError() async throws {
        let harness = try DaemonHarness()
        let run = try await Started(harness, harness.arguments(log: Self.drive, extra: ["--gpsd.port", "0"])) {
            ["JOURNAL_STREAM": $0]
        }.finish()
        #expect(run.exitStatus == 2)
        #expect(run.lines == ["<3>livelocd: --gpsd.port: invalid value '0' for key 'gpsd.port': expected a port number 1-65535"])
    }

    @Test(arguments: [false, true])
    func withoutTheJournalNoLineHasAPriority(inheritedFromAnotherStream: Bool) async throws {
        // A JOURNAL_STREAM naming another file (a child whose stderr went elsewhere inherits one)
        // is not this stream: no prefixes, as without the variable.
        let run = try await Self.run { deviceAndInode in
            inheritedFromAnotherStream ? ["JOURNAL_STREAM": deviceAndInode.replacingOccurrences(of: ":", with: ":1")] : [:]
        }
        #expect(run.exitStatus == 0, "\(run.lines)")
        #expect(run.line("ready:") != nil, "\(run.lines)")
        for line in run.lines {
            #expect(line.hasPrefix("livelocd: "), "\(line)")
        }
    }

    @Test(arguments: [["--log-level", "warning"], ["--log.level", "warning"]])
    func atWarningTheInfoAndNoticeLinesOfARunAreLeftOut(option: [String]) async throws {
        // The same run at the default level (info) writes them all: the comparison is the point.
        let everything = try await Self.run()
        for text in ["control socket:", "ready:", "started for 15m", "SIGTERM: shutting down", "stopped; no share was active"] {
            #expect(everything.line(text) != nil, "\(text) missing at info: \(everything.lines)")
        }
        let warnings = try await Self.run(extra: option)
        #expect(warnings.exitStatus == 0, "\(warnings.lines)")
        #expect(warnings.lines == ["livelocd: control group '\(Self.missingGroup)' does not exist: only root and the daemon's own user may control it"])
    }

    @Test func atErrorEvenTheWarningIsLeftOutAndAtDebugEverythingIsWritten() async throws {
        let errors = try await Self.run(extra: ["--log-level", "error"])
        #expect(errors.exitStatus == 0)
        #expect(errors.lines.isEmpty, "\(errors.lines)")
        let debug = try await Self.run(extra: ["--log-level", "debug"])
        #expect(debug.line("does not exist") != nil && debug.line("ready:") != nil && debug.line("control socket:") != nil, "\(debug.lines)")
    }

    @Test func aBadLogLevelStopsStartupWithExitStatus2NamingTheKey() async throws {
        let harness = try DaemonHarness()
        let config = harness.directory.appendingPathComponent("bad-level.conf").path
        try "# a level that is none\nlog.level = bogus\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fromFile = try await runProcess(Paths.executable("livelocd"),
                                            harness.arguments(log: Self.drive).map { $0 == harness.configPath() ? config : $0 })
        #expect(fromFile.status == 2)
        #expect(fromFile.stderr == "livelocd: \(config):2: invalid value 'bogus' for key 'log.level': "
                + "expected debug, info, notice, warning or error\n")
        let fromOption = try await runProcess(Paths.executable("livelocd"), harness.arguments(log: Self.drive, extra: ["--log-level", "loud"]))
        #expect(fromOption.status == 2)
        #expect(fromOption.stderr == "livelocd: --log-level: invalid value 'loud' for key 'log.level': "
                + "expected debug, info, notice, warning or error\n")
        #expect(!FileManager.default.fileExists(atPath: harness.socketPath))
    }
}
