#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// The two directories livelocd writes to: the state directory (the journal) and the control
/// socket's directory. Under systemd the unit makes them (StateDirectory=, RuntimeDirectory=);
/// run by hand, livelocd makes them itself when they are absent (mode 0700 for the state, 0755 for
/// the socket's), so that root needs no option. A user who may not create or write them gets one
/// line naming the two options that move them.
enum WorkingDirectories {
    /// Makes the state directory and, unless systemd passed the socket, the socket's directory.
    /// - Throws: `StartupError`: one line, naming `--state_directory` and `--control.socket` when
    ///   this user may not use the defaults.
    static func prepare(stateDirectory: String, controlSocket: String, socketActivated: Bool) throws(StartupError) {
        var wanted: [(path: String, mode: mode_t, purpose: String)] = [(stateDirectory, 0o700, "the state directory (the journal)")]
        if !socketActivated { wanted.append((parentDirectory(of: controlSocket), 0o755, "the control socket's directory")) }
        for (path, mode, purpose) in wanted {
            do { try makeDirectories(path, mode: mode) } catch {
                guard error.errno == .permissionDenied || error.errno == .notPermitted || error.errno == .readOnlyFileSystem else {
                    throw StartupError("\(purpose): \(error)")
                }
                throw StartupError("\(purpose): \(error); as a user other than root, pass --state_directory and --control.socket, e.g. "
                                   + suggestion)
            }
        }
    }

    /// What to run instead, as the user's shell expands it.
    static let suggestion = "livelocd --state_directory ~/.local/state/livelocd --control.socket ~/.local/state/livelocd/control.sock"

}
