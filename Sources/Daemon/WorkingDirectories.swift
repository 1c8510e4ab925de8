#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// The two directories livelocd writes to: the state directory (the journal) and the control
/// socket's directory. Under systemd the unit makes them (StateDirectory=, RuntimeDirectory=);
/// run by hand, livelocd makes them itself when they are absent (mode 0700 for the state, 0755 for
/// the socket's), so that root needs no option. A user who may not create or write them gets one
/// line naming the two options that move them.
///
/// Root run by hand with the packaged state directory runs as the unit does: the directories it
/// makes belong to the package's user `livelocd`, and it becomes that user once they and the control
/// socket are made (`daemonUser`), so that the journal is never root's and the service can open it.
enum WorkingDirectories {
    /// The packaged state directory and the user the unit runs as (debian/livelocd.sysusers).
    static let packagedStateDirectory = "/var/lib/livelocd"
    static let packagedUser = "livelocd"

    /// The user root becomes after start-up: `livelocd` when this process is root, was not started
    /// by systemd (a unit says its own `User=`), uses the packaged state directory and the user
    /// exists; nil otherwise (the process stays who it is).
    static func daemonUser(stateDirectory: String, startedBySystemd: Bool, log: Logger) -> UserAccount? {
        guard geteuid() == 0, !startedBySystemd, stateDirectory == packagedStateDirectory else { return nil }
        do {
            return try UserAccount.named(packagedUser)
        } catch {
            log.warning("user '\(packagedUser)': \(error); running as root")
            return nil
        }
    }

    /// Makes the state directory and, unless systemd passed the socket, the socket's directory; a
    /// directory made here belongs to `owner` when one is given.
    /// - Throws: `StartupError`: one line, naming `--state_directory` and `--control.socket` when
    ///   this user may not use the defaults.
    static func prepare(stateDirectory: String, controlSocket: String, socketActivated: Bool,
                        owner: UserAccount? = nil) throws(StartupError) {
        var wanted: [(path: String, mode: mode_t, purpose: String)] = [(stateDirectory, 0o700, "the state directory (the journal)")]
        if !socketActivated { wanted.append((parentDirectory(of: controlSocket), 0o755, "the control socket's directory")) }
        for (path, mode, purpose) in wanted {
            var existing = stat()
            let existed = stat(path, &existing) == 0
            do { try makeDirectories(path, mode: mode) } catch {
                guard error.errno == .permissionDenied || error.errno == .notPermitted || error.errno == .readOnlyFileSystem else {
                    throw StartupError("\(purpose): \(error)")
                }
                throw StartupError("\(purpose): \(error); as a user other than root, pass --state_directory and --control.socket, e.g. "
                                   + suggestion)
            }
            if let owner, !existed, chown(path, owner.uid, owner.gid) != 0 {
                throw StartupError("\(purpose): \(SystemError("chown", target: path))")
            }
        }
    }

    /// What to run instead, as the user's shell expands it.
    static let suggestion = "livelocd --state_directory ~/.local/state/livelocd --control.socket ~/.local/state/livelocd/control.sock"

    /// The group the control socket is given: `configured` when this process may give it (root, or
    /// a member of it); nil, with the notice that says so, when it may not (a user running livelocd
    /// by hand who is not in `livelocd-ctl`: the socket is then that user's and root's only).
    static func usableControlGroup(_ configured: gid_t?, name: String) -> (gid_t?, notice: String?) {
        guard let configured, geteuid() != 0, getegid() != configured else { return (configured, nil) }
        var groups = [gid_t](repeating: 0, count: Int(max(0, getgroups(0, nil))))
        let count = getgroups(Int32(groups.count), &groups)
        if count >= 0, groups.prefix(Int(count)).contains(configured) { return (configured, nil) }
        return (nil, "control group '\(name)': this user is not in it, so only this user and root may control livelocd "
                + "(--control.group GROUP names one of this user's groups)")
    }
}
