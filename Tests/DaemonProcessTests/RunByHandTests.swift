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
    @Test(.enabled(if: getuid() == 0, "needs root"))
    func asRootWithNoOptionsItMakesItsDirectoriesAndAnswers() async throws {
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
    @Test(.enabled(if: getuid() == 0, "needs root to become nobody"))
    func asAnotherUserItNamesTheOptionsInOneLineAndRunsWithThem() async throws {
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
        let id = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(daemon.lines(.stderr).last?.hasSuffix("stopped; share \(id) stays in the journal and is resumed at the next start") == true,
                "\(daemon.lines(.stderr))")
    }

    /// The files of a mount namespace in which this machine has the package's user `livelocd` (as
    /// systemd-sysusers makes it: passwd and group entries) and that user is in one more group.
    struct PackagedUser {
        static let uid: uid_t = 64990, gid: gid_t = 64990, controlGID: gid_t = 64991, extraGID: gid_t = 64992
        let passwd: URL, group: URL
        init(in directory: URL) throws {
            passwd = directory.appendingPathComponent("passwd")
            group = directory.appendingPathComponent("group")
            try (String(contentsOfFile: "/etc/passwd", encoding: .utf8)
                 + "livelocd:x:\(Self.uid):\(Self.gid):livelocd:/var/lib/livelocd:/usr/sbin/nologin\n").write(to: passwd, atomically: true, encoding: .utf8)
            try (String(contentsOfFile: "/etc/group", encoding: .utf8)
                 + "livelocd:x:\(Self.gid):\nlivelocd-ctl:x:\(Self.controlGID):\nlivelocd-extra:x:\(Self.extraGID):someone,livelocd\n")
                .write(to: group, atomically: true, encoding: .utf8)
        }
        /// A shell script for `unshare --mount`: empty /run, /var/lib and /etc/livelocd, these
        /// passwd and group files, then `prepare`, then the program in $0.
        func wrapper(prepare: String = "") -> String {
            """
            mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib || exit 97
            if [ -d /etc/livelocd ]; then mount -t tmpfs tmpfs /etc/livelocd || exit 97; fi
            mount --bind \(passwd.path) /etc/passwd && mount --bind \(group.path) /etc/group || exit 97
            \(prepare)
            exec "$0"
            """
        }
    }

    /// `sudo livelocd` on a device with the package: root makes the directories for the package's
    /// user, binds the control socket with the control group, then runs as `livelocd` (with its
    /// groups), so the journal is the service's and never root's.
    @Test(.enabled(if: getuid() == 0, "needs root"))
    func asRootWithThePackagedUserItRunsAsThatUserAndTheJournalIsItsOwn() async throws {
        let directory = try Paths.temporaryDirectory("livelocd-as-unit")
        defer { try? FileManager.default.removeItem(at: directory) }
        let user = try PackagedUser(in: directory)
        let daemon = try await DaemonProcess(URL(fileURLWithPath: "/usr/bin/unshare"),
                                             ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", user.wrapper(),
                                              Paths.executable("livelocd").path])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        #expect(daemon.lines(.stderr).contains { $0.contains("running as user livelocd") })
        let root = "/proc/\(daemon.pid)/root"
        let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8).split(separator: "\n")
        #expect(status.first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().allSatisfy { $0 == "\(PackagedUser.uid)" } == true)
        #expect(status.first { $0.hasPrefix("Gid:") }?.split(separator: "\t").dropFirst().allSatisfy { $0 == "\(PackagedUser.gid)" } == true)
        #expect(status.first { $0.hasPrefix("Groups:") }?.contains("\(PackagedUser.extraGID)") == true)
        for path in ["/var/lib/livelocd", "/var/lib/livelocd/journal.sqlite", "/var/lib/livelocd/journal.lock", "/run/livelocd"] {
            var info = stat()
            #expect(stat(root + path, &info) == 0, "\(path)")
            #expect(info.st_uid == PackagedUser.uid, "\(path) belongs to \(info.st_uid)")
        }
        var socket = stat()
        #expect(stat(root + "/run/livelocd/control.sock", &socket) == 0)
        #expect(socket.st_gid == PackagedUser.controlGID)
        let answered = try await runProcess(Paths.executable("liveloc"), ["status", "--socket", root + "/run/livelocd/control.sock"])
        #expect(answered.status == 0, "\(answered.stderr)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    /// A journal file root left behind (a livelocd run as root before it became the unit's user)
    /// stops start-up in one line naming its owner and the chown that fixes it.
    @Test(.enabled(if: getuid() == 0, "needs root"))
    func aJournalFileTheDaemonsUserCannotOpenNamesItsOwnerAndTheChown() async throws {
        let directory = try Paths.temporaryDirectory("livelocd-root-journal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let user = try PackagedUser(in: directory)
        let prepare = """
            mkdir -m 700 /var/lib/livelocd && chown \(PackagedUser.uid):\(PackagedUser.gid) /var/lib/livelocd || exit 97
            : > /var/lib/livelocd/journal.sqlite && chmod 600 /var/lib/livelocd/journal.sqlite || exit 97
            """
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/unshare"),
                                          ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", user.wrapper(prepare: prepare),
                                           Paths.executable("livelocd").path], timeout: .seconds(20))
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").filter { !$0.contains("running as user") }
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("/var/lib/livelocd/journal.sqlite belongs to root and livelocd runs as livelocd"), "\(result.stderr)")
        #expect(result.stderr.contains("'sudo chown -R livelocd: /var/lib/livelocd'"))
    }

    /// A user not in the configured control group (root's group here; livelocd-ctl on a device)
    /// runs livelocd by hand: the group is skipped with one line, the socket is that user's; and a
    /// start that fails after the socket was made leaves no socket file behind.
    @Test(.enabled(if: getuid() == 0, "needs root to become nobody"))
    func aUserOutsideTheControlGroupRunsWithoutItAndAFailedStartLeavesNoSocket() async throws {
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let directory = try Paths.temporaryDirectory("livelocd-not-in-group")
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o755)
        chown(directory.path, 65534, 65534)
        let socket = directory.appendingPathComponent("run/control.sock").path
        let options = ["--state_directory", directory.appendingPathComponent("state").path, "--control.socket", socket,
                       "--control.group", "root", "--source", "replay"]
        let daemon = try await DaemonProcess(setpriv, asNobody + [Paths.executable("livelocd").path] + options
                                             + ["--replay.file", Paths.fixture("drive-multignss-1hz.nmea").path])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        #expect(daemon.lines(.stderr).contains { $0.contains("control group 'root': this user is not in it") })
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_gid == 65534)
        let status = try await runProcess(setpriv, asNobody + [Paths.executable("liveloc").path, "status", "--socket", socket])
        #expect(status.status == 0, "\(status.stderr)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))

        let failed = try await runProcess(setpriv, asNobody + [Paths.executable("livelocd").path] + options
                                          + ["--replay.file", directory.appendingPathComponent("missing.nmea").path], timeout: .seconds(20))
        #expect(failed.status == 2, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket), "a socket file was left behind")
    }
}
