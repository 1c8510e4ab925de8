#if canImport(Glibc)
import Glibc
#endif

/// The directory part of `path`: `/run/livelocd` of `/run/livelocd/control.sock`, `.` without a slash.
package func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// fsyncs the directory that holds `path`, so that a rename, unlink or mkdir in it survives a crash.
/// - Throws: `SystemError` naming the call and the directory (`fsync /var/lib/livelocd: …`).
package func syncDirectory(containing path: String) throws(SystemError) {
    let directory = parentDirectory(of: path)
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError("open", target: directory) }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw SystemError("fsync", target: directory) }
}

/// `mkdir -p`: the missing parents with mode 0755, the directory itself with `mode`, each synced
/// into its parent; then checks that this process may create files in it (an existing directory
/// keeps its mode).
/// - Throws: `SystemError` of the first step that failed.
package func makeDirectories(_ path: String, mode: mode_t) throws(SystemError) {
    var status = stat()
    if stat(path, &status) == 0 {
        guard status.st_mode & S_IFMT == S_IFDIR else { throw SystemError("mkdir", target: path, errno: .notDirectory) }
        guard access(path, W_OK | X_OK) == 0 else { throw SystemError("write to", target: path) }
        return
    }
    guard errno == ENOENT else { throw SystemError("stat", target: path) }
    let parent = parentDirectory(of: path)
    if parent != path && parent != "." && parent != "/" {
        var parentStatus = stat()
        if stat(parent, &parentStatus) != 0 { try makeDirectories(parent, mode: 0o755) }
    }
    if retryingOnInterrupt({ mkdir(path, mode) }) == 0 {
        // The new name survives a power cut only once its parent is synced (a state directory made
        // here holds the journal).
        try syncDirectory(containing: path)
    } else if errno != EEXIST {
        throw SystemError("mkdir", target: path)
    }
}
