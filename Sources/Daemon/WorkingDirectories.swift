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
        var wanted: [(path: String, mode: mode_t)] = [(stateDirectory, 0o700)]
        if !socketActivated { wanted.append((parent(of: controlSocket), 0o755)) }
        for (path, mode) in wanted {
            do { try makeDirectory(path, mode: mode) } catch {
                guard error.errno == EACCES || error.errno == EPERM || error.errno == EROFS else {
                    throw StartupError("\(error)")
                }
                throw StartupError("\(error); as a user other than root, pass --state_directory and --control.socket, e.g. "
                                   + suggestion)
            }
        }
    }

    /// What to run instead, as the user's shell expands it.
    static let suggestion = "livelocd --state_directory ~/.local/state/livelocd --control.socket ~/.local/state/livelocd/control.sock"

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `mkdir -p`: the missing parents with mode 0755, the directory itself with `mode`; then checks
    /// that this process may create files in it.
    /// - Throws: `SystemError` of the first step that failed.
    static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw SystemError("mkdir", target: path, errno: ENOTDIR) }
            guard access(path, W_OK | X_OK) == 0 else { throw SystemError("write to", target: path) }
            return
        }
        guard errno == ENOENT else { throw SystemError("stat", target: path) }
        let parentPath = parent(of: path)
        if parentPath != path && parentPath != "." && parentPath != "/" {
            var parentStatus = stat()
            if stat(parentPath, &parentStatus) != 0 { try makeDirectory(parentPath, mode: 0o755) }
        }
        guard mkdir(path, mode) == 0 || errno == EEXIST else { throw SystemError("mkdir", target: path) }
    }
}
