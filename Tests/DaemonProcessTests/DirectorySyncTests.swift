import Foundation
import Testing
import TestSupport

/// A file created or renamed survives a power cut only once its directory is synced: livelocd
/// under strace creates its state directory and journal, and takes over an earlier version's
/// share.json, each followed by an fsync of the directory that holds the new name.
@Suite(.serialized) struct DirectorySyncTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    /// The calls of livelocd (and its threads) that create, rename and sync, one line each, with
    /// the paths of their descriptors (`fsync(6</tmp/…/state>)`), up to its shutdown.
    func tracedStart(_ harness: DaemonHarness) async throws -> [String] {
        let trace = harness.directory.appendingPathComponent("strace.txt").path
        // LeakSanitizer (scripts/sanitizers address) needs ptrace at exit, which strace holds: the
        // traced daemon is left without its leak check (-E sets it for the traced command only).
        let daemon = try await DaemonProcess(URL(fileURLWithPath: "/usr/bin/strace"), [
            "-f", "-y", "-qq", "-E", "ASAN_OPTIONS=detect_leaks=0", "-o", trace, "-e", "trace=mkdir,mkdirat,openat,rename,renameat,renameat2,fsync,fdatasync",
            Paths.executable("livelocd").path] + harness.arguments(log: Self.drive, speed: 1))
        try await daemon.waitForLine(.stderr, timeout: .seconds(60)) { $0.contains("ready:") }
        // strace's child is livelocd: a SIGTERM to it ends both.
        let children = try String(contentsOfFile: "/proc/\(daemon.pid)/task/\(daemon.pid)/children", encoding: .utf8)
        let livelocd = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
        kill(livelocd, SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        return Self.joiningInterruptedCalls(try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init))
    }

    /// strace -f splits a call another thread interrupts into `PID fsync(6</x> <unfinished ...>` and
    /// `PID <... fsync resumed>) = 0`: each pair joined into one line, where the call returned.
    static func joiningInterruptedCalls(_ lines: [String]) -> [String] {
        var started: [Substring: String] = [:]
        var joined: [String] = []
        for line in lines {
            let pid = line.prefix { $0 != " " }
            if line.hasSuffix(" <unfinished ...>") {
                started[pid] = String(line.dropLast(" <unfinished ...>".count))
            } else if let resumed = line.range(of: " resumed>"), line.contains("<... "), let head = started.removeValue(forKey: pid) {
                joined.append(head + line[resumed.upperBound...])
            } else {
                joined.append(line)
            }
        }
        return joined
    }

    @Test func aCallAnotherThreadInterruptedIsJoinedWhereItReturned() {
        let lines = ["7 fsync(6</tmp/state> <unfinished ...>", "8 openat(AT_FDCWD, \"/tmp/state/journal.sqlite-wal\", O_RDWR) = 9",
                     "7 <... fsync resumed>) = 0"]
        #expect(Self.joiningInterruptedCalls(lines) == [lines[1], "7 fsync(6</tmp/state>) = 0"])
    }

    /// The index of the first line after `index` that fsyncs the directory `directory`.
    func directorySync(of directory: String, after index: Int, in lines: [String]) -> Int? {
        lines.indices.first { $0 > index && lines[$0].contains("fsync(") && lines[$0].contains("<\(directory)>)") && lines[$0].hasSuffix("= 0") }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func theNewStateDirectoryAndTheNewJournalAreEachFollowedByASyncOfTheirDirectory() async throws {
        let harness = try DaemonHarness()
        let state = harness.stateDirectory
        let lines = try await tracedStart(harness)
        let made = try #require(lines.firstIndex { ($0.contains("mkdir(") || $0.contains("mkdirat(")) && $0.contains("\"\(state)\"") && $0.hasSuffix("= 0") },
                                "\(lines.prefix(40))")
        #expect(directorySync(of: harness.directory.path, after: made, in: lines) != nil, "no fsync of \(harness.directory.path) after mkdir")
        let created = try #require(lines.firstIndex { $0.contains("openat(") && $0.contains("\"\(state)/journal.sqlite\"") && $0.contains("O_CREAT") })
        // Before SQLite creates the WAL (which it syncs the directory for itself).
        let wal = lines.firstIndex { $0.contains("openat(") && $0.contains("\"\(state)/journal.sqlite-wal\"") } ?? lines.count
        let synced = directorySync(of: state, after: created, in: lines)
        #expect(synced != nil && synced! < wal, "no fsync of \(state) between the journal's creation and its WAL's")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")))
    func anEarlierVersionsShareFileRenamedAfterItsTakeoverIsFollowedByASyncOfItsDirectory() async throws {
        let harness = try DaemonHarness()
        let state = harness.stateDirectory
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let expires: Int64 = 1_773_475_140_000 + 8 * 3_600_000
        let share = #"{"expiresAt":{"millisecondsSince1970":\#(expires)},"id":{"rawValue":"legacy-0001"},"seq":3,"startedAt":{"millisecondsSince1970":1773475140000},"updatesSent":3}"#
        try share.write(toFile: state + "/share.json", atomically: true, encoding: .utf8)
        let lines = try await tracedStart(harness)
        let renamed = try #require(lines.firstIndex { $0.contains("rename") && $0.contains("\"\(state)/share.json.migrated\"") && $0.hasSuffix("= 0") },
                                   "\(lines.suffix(40))")
        #expect(directorySync(of: state, after: renamed, in: lines) != nil, "no fsync of \(state) after the rename")
    }
}
