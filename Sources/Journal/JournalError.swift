import SystemIO

/// Why the journal cannot be opened or written, in one line.
package enum JournalError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The state directory or the journal file cannot be made or opened.
    case directory(SystemError)
    /// A file of the journal (or its directory) exists but this process's user may not write it:
    /// `owner` has it (root's, after livelocd was run as root by hand), `user` is who runs now.
    case notWritable(path: String, owner: String, user: String, directory: String)
    /// An SQLite call failed (I/O error, disk full, corrupt or locked database).
    case sqlite(SQLiteError)
    /// A legacy file (share.json, webhook outbox) cannot be taken over.
    case migration(path: String, reason: String)
    /// Another process (a `liveloc share` or livelocd) has the state directory's journal open:
    /// `holder` is its process id when it could be read.
    case inUse(directory: String, holder: Int32?)
    /// The journal was closed.
    case closed
    /// The journal's file was removed or replaced while open: nothing written now would be found
    /// at the next start. Held like a write failure, for good (until a restart).
    case fileGone(String)
    /// The journal's file is damaged (garbage, truncation): nothing more is written to it; the
    /// next start moves it aside and keeps what can be read.
    case damaged(String)

    /// True when nothing can ever be written again until a restart (the file gone or damaged):
    /// held events are given up at shutdown instead of retried for ever.
    package var isLasting: Bool {
        switch self {
        case .fileGone, .damaged: true
        default: false
        }
    }

    /// True when the failure is a full disk: the daemon holds its events and retries.
    package var isDiskFull: Bool {
        if case .sqlite(let error) = self { return error.isDiskFull }
        return false
    }

    package var description: String {
        switch self {
        case .directory(let error): "journal: \(error)"
        case .notWritable(let path, let owner, let user, let directory):
            "journal: \(path) belongs to \(owner) and livelocd runs as \(user), who may not write it; "
                + "'sudo chown -R \(user): \(directory)' gives the journal back to \(user)"
        case .sqlite(let error): "journal \(error)"
        case .migration(let path, let reason): "journal: cannot take over \(path): \(reason)"
        case .inUse(let directory, let holder):
            "state directory \(directory) is in use by \(holder.map { "process \($0)" } ?? "another process") "
                + "(a liveloc share or livelocd); two at once need a state directory each (--state-directory)"
        case .closed: "journal: closed"
        case .fileGone(let reason): "journal: \(reason); nothing more can be made durable until livelocd is restarted"
        case .damaged(let reason): "journal: damaged (\(reason)); nothing more is written to it, "
            + "and the next start moves it aside and keeps what can be read"
        }
    }
}
