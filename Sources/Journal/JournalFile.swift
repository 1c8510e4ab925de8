#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// The journal's file as it was opened, kept open by a descriptor of its own, to notice when the
/// file at the journal's path is no longer it: removed (its link count is 0, or the state directory
/// is gone) or replaced by another file. SQLite would go on writing to the removed file without an
/// error, and nothing written there would be found at the next start (issue 23: the share and 61
/// undelivered events lost without a log line).
///
/// The descriptor is closed only after SQLite's connection is (closing any descriptor of a file
/// drops the process's POSIX locks on it, SQLite's included): `close()` closes `connection` first.
final class JournalFile {
    let path: String
    private var descriptor: Int32
    /// SQLite's connection to this file, closed before the descriptor.
    var connection: SQLiteConnection?

    /// Opens (or creates, mode 0600) the file at `path`; SQLite gives its -wal and -shm the same mode.
    init(path: String) throws(JournalError) {
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .directory(SystemError("open", target: path)) }
        _ = fchmod(descriptor, 0o600)
    }

    deinit { close() }

    /// Closes the connection, then the descriptor.
    func close() {
        connection?.close()
        connection = nil
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    /// nil while the file at `path` is the one opened; else what became of it, in words.
    func whatBecameOfIt() -> String? {
        var opened = stat()
        guard descriptor >= 0, fstat(descriptor, &opened) == 0 else { return nil }
        var current = stat()
        let found = stat(path, &current) == 0
        if found, current.st_dev != opened.st_dev || current.st_ino != opened.st_ino {
            return "\(path) was replaced by another file while livelocd runs"
        }
        if opened.st_nlink == 0 || !found {
            return "\(path) was removed while livelocd runs (its state directory deleted?)"
        }
        return nil
    }
}
