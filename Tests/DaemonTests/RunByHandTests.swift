import Foundation
import Testing
import TestSupport

/// `livelocd` run by hand, without systemd: as root with no options it works as the unit does,
/// making /run/livelocd and /var/lib/livelocd; as another user it stops in one line naming the
/// options that move them, and runs with them.
@Suite struct RunByHandTests {
    /// livelocd as root with no option at all, in a mount namespace of its own whose /run, /var/lib
    /// and /etc/livelocd are empty (this machine's stay untouched); the test reaches its files and
    /// its socket through /proc/PID/root.
    @Test func asRootWithNoOptionsItMakesItsDirectoriesAndAnswers() async throws {
        try #require(getuid() == 0, "needs root")
        let wrapper = """
            mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib || exit 97
            if [ -d /etc/livelocd ]; then mount -t tmpfs tmpfs /etc/livelocd || exit 97; fi
            exec "$0"
            """
        let daemon = try await DaemonProcess(URL(fileURLWithPath: "/usr/bin/unshare"),
                                       ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", wrapper,
                                        Paths.executable("livelocd").path])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        let root = "/proc/\(daemon.pid)/root"
        var state = stat(), runtime = stat()
        #expect(stat(root + "/var/lib/livelocd", &state) == 0)
        #expect(state.st_mode & 0o7777 == 0o700)
        #expect(stat(root + "/run/livelocd", &runtime) == 0)
        #expect(runtime.st_mode & 0o7777 == 0o755)
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/livelocd/journal.sqlite"))
        let status = try await runProcess(Paths.executable("liveloc"), ["status", "--socket", root + "/run/livelocd/control.sock"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("gpsd"))
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// As nobody: /var/lib/livelocd cannot be made (or written) by it, so one line names the options.
    @Test func asAnotherUserItNamesTheOptionsInOneLineAndRunsWithThem() async throws {
        try #require(getuid() == 0, "needs root to become nobody")
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let refused = try await runProcess(setpriv, asNobody + [Paths.executable("livelocd").path], timeout: .seconds(20))
        #expect(refused.status == 1)
        let lines = refused.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("Permission denied"))
        #expect(refused.stderr.contains("--state_directory") && refused.stderr.contains("--control.socket"))

        // With the options it names (a directory nobody owns): it runs, and its own user may control it.
        let directory = try Paths.temporaryDirectory("livelocd-by-hand")
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o755)
        chown(directory.path, 65534, 65534)
        let socket = directory.appendingPathComponent("run/control.sock").path
        let daemon = try await DaemonProcess(setpriv, asNobody + [Paths.executable("livelocd").path,
                                       "--state_directory", directory.appendingPathComponent("state").path,
                                       "--control.socket", socket,
                                       "--source", "replay", "--replay.file", Paths.fixture("drive-multignss-1hz.nmea").path])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        let started = try await runProcess(setpriv, asNobody + [Paths.executable("liveloc").path, "start", "--duration", "15m",
                                                                "--socket", socket])
        #expect(started.status == 0, "\(started.stderr)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
