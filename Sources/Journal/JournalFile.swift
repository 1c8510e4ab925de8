#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
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

    /// After the file was removed while open (SQLite goes on using the removed file): writes what
    /// `database` holds back under the journal's path, so that the next start finds the share and
    /// its undelivered events. The state directory is made again if it is gone; a file that
    /// replaced the journal is not overwritten (the copy goes to `journal.sqlite.recovered-<UTC>`).
    /// Written to a temporary name, synced, then renamed. Returns the path written.
    func writeBack(_ database: SQLiteConnection, at now: Timestamp) throws(JournalError) -> String {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw .directory(SystemError("mkdir", target: directory)) }
        let target = access(path, F_OK) == 0 ? JournalSalvage.stamped(path + ".recovered-", at: now) : path
        let temporary = target + ".writing"
        unlink(temporary)
        do { try database.run("VACUUM INTO ?1", [.text(temporary)]) } catch { throw .sqlite(error) }
        let written = open(temporary, O_RDONLY | O_CLOEXEC)
        guard written >= 0 else { throw .directory(SystemError("open", target: temporary)) }
        _ = fchmod(written, 0o600)
        let synced = fsync(written) == 0
        Glibc.close(written)
        guard synced else { throw .directory(SystemError("fsync", target: temporary)) }
        guard rename(temporary, target) == 0 else { throw .directory(SystemError("rename", target: temporary)) }
        let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parent >= 0 {
            _ = fsync(parent)
            Glibc.close(parent)
        }
        return target
    }

    /// nil while the file at `path` is the one opened; else what became of it, in words.
    func whatBecameOfIt() -> String? {
        var opened = stat()
        guard descriptor >= 0, fstat(descriptor, &opened) == 0 else { return nil }
        var current = stat()
        let found = stat(path, &current) == 0
        if found, current.st_dev != opened.st_dev || current.st_ino != opened.st_ino {
            return "\(path) was replaced by another file while in use"
        }
        if opened.st_nlink == 0 || !found {
            return "\(path) was removed while in use (its state directory deleted?)"
        }
        return nil
    }
}
