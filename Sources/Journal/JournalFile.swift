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
    private var descriptor: FileDescriptor?
    /// The file as opened (its device and inode): what the path must still name.
    private let opened: FileStatus?
    /// SQLite's connection to this file, closed before the descriptor.
    var connection: SQLiteConnection?

    /// Opens (or creates, mode 0600) the file at `path`; SQLite gives its -wal and -shm the same mode.
    init(path: String) throws(JournalError) {
        self.path = path
        do {
            let descriptor = try FileDescriptor.openFile(path, FileOpening(.readWrite, creatingWith: 0o600))
            try? descriptor.setPermissions(0o600, path: path)
            self.descriptor = descriptor
            opened = try? descriptor.status(path: path)
        } catch { throw .directory(error) }
    }

    deinit { close() }

    /// Closes the connection, then the descriptor.
    func close() {
        connection?.close()
        connection = nil
        descriptor?.close()
        descriptor = nil
    }

    /// After the file was removed while open (SQLite goes on using the removed file): writes what
    /// `database` holds back under the journal's path, so that the next start finds the share and
    /// its undelivered events. The state directory is made again if it is gone; a file that
    /// replaced the journal is not overwritten (the copy goes to `journal.sqlite.recovered-<UTC>`).
    /// Written to a temporary name, synced, then renamed. Returns the path written.
    func writeBack(_ database: SQLiteConnection, at now: Timestamp) throws(JournalError) -> String {
        do { _ = try FileSystem.makeDirectory(parentDirectory(of: path), mode: 0o700) } catch { throw .directory(error) }
        let target = FileSystem.exists(path) ? JournalSalvage.stamped(path + ".recovered-", at: now) : path
        let temporary = target + ".writing"
        try? FileSystem.remove(temporary)
        do { try database.run("VACUUM INTO ?1", [.text(temporary)]) } catch { throw .sqlite(error) }
        do {
            let written = try FileDescriptor.openFile(temporary, FileOpening(.readOnly))
            defer { written.close() }
            try? written.setPermissions(0o600, path: temporary)
            try written.sync(path: temporary)
        } catch { throw .directory(error) }
        do { try FileSystem.rename(temporary, to: target) } catch { throw .directory(error) }
        try? syncDirectory(containing: target)
        return target
    }

    /// nil while the file at `path` is the one opened; else what became of it, in words. One `stat`
    /// of the path (a commit asks twice): a path that names the opened inode names a file that has
    /// a name, so its link count need not be read apart.
    func whatBecameOfIt() -> String? {
        guard let opened else { return nil }
        guard let current = try? FileStatus(path: path) else {
            return "\(path) was removed while in use (its state directory deleted?)"
        }
        if !current.isSameFile(as: opened) {
            return "\(path) was replaced by another file while in use"
        }
        return nil
    }
}
