#if canImport(Glibc)
import Glibc
#endif
import Delivery
import LiveLocation
import SystemIO

/// Opening a journal (its directory and lock, its file, the schema, the share and the queues read
/// back) and closing it.
extension Journal {
    /// What `openAndLoad` opened and read.
    struct Loaded {
        var database: SQLiteConnection
        var file: JournalFile
        var share: ShareSnapshot?
        var queues: [String: Queue]
        var leftoverQueues: [LeftoverQueue]
        var openShareReceivers: ShareReceivers?
        var newestTrackFix: (position: Int64, share: ShareID)?
        /// The high-water mark for what the journal holds now.
        var highWater: HighWaterMark
    }

    /// Makes `directory` if it is missing, takes its lock and starts the journal's thread.
    ///
    /// A directory created here is made durable at once (an fsync of the directory that holds it):
    /// a power cut must not take the journal's file away under a commit that returned.
    /// - Throws: `JournalError` (`.directory`, or `.inUse` when another process holds the lock).
    static func takeDirectory(_ directory: String) throws(JournalError) -> (lock: FileDescriptor, executor: ThreadExecutor) {
        do {
            if try FileSystem.makeDirectory(directory, mode: 0o700) { try syncDirectory(containing: directory) }
        } catch { throw .directory(error) }
        try checkOwnership(directory)
        let lock = try lockDirectory(directory)
        do { return (lock, try ThreadExecutor(name: "livelocd-journal")) } catch {
            lock.unlockAndClose()
            throw .directory(error)
        }
    }

    /// Fails in one line naming the owner and the `chown` that fixes it when the state directory or
    /// a journal file in it exists but this process may not write it (made by root by hand, run
    /// now as the unit's user): rather than SQLite's "readonly database" at the first commit.
    private static func checkOwnership(_ directory: String) throws(JournalError) {
        for path in [directory] + ["journal.lock", "journal.sqlite", "journal.sqlite-wal", "journal.sqlite-shm"].map({ directory + "/" + $0 }) {
            var info = stat()
            guard stat(path, &info) == 0, access(path, path == directory ? (W_OK | X_OK) : (R_OK | W_OK)) != 0 else { continue }
            throw .notWritable(path: path, owner: UserAccount.name(of: info.st_uid), user: UserAccount.name(of: geteuid()),
                               directory: directory)
        }
    }

    /// Takes `directory`'s lock, or says which process has it. The lock file keeps the holder's pid.
    private static func lockDirectory(_ directory: String) throws(JournalError) -> FileDescriptor {
        let path = directory + "/journal.lock"
        let lock: FileDescriptor
        do { lock = try FileDescriptor.openForLocking(path) } catch { throw .directory(error) }
        do {
            guard try lock.tryLockExclusively() else {
                let holder = Int32(String(decoding: (try? lock.readToEnd(limit: 32, path: path)) ?? [], as: UTF8.self).filter(\.isNumber))
                lock.close()
                throw JournalError.inUse(directory: directory, holder: holder)
            }
            try lock.replaceContents(Array("\(currentProcessID)\n".utf8), path: path)
        } catch let error as SystemError {
            lock.unlockAndClose()
            throw .directory(error)
        } catch {
            throw error as! JournalError
        }
        return lock
    }

    /// Opens the journal at `path` and reads it (`load`). A damaged journal is moved aside with its
    /// WAL and what can be read from it is kept in a new one: it never stops every later start. A
    /// journal found damaged while in use (the high-water mark says so) is moved aside too, even
    /// when SQLite finds nothing wrong with it now (it ignores a WAL whose checksums fail).
    /// - Throws: `JournalError` (`.sqlite` for SQLite's failures).
    static func openAndLoad(path: String, directory: String, destinations: [String: QueuePolicy], leftovers: LeftoverPolicy,
                            legacyOutbox: String?, trackRetention: Duration?, openedAt: Timestamp, highWater: HighWaterMark?,
                            sqliteVFS: String?, log: Logger) throws(JournalError) -> Loaded {
        let keptWAL = JournalSalvage.keepWAL(of: path)
        defer { if let keptWAL { try? FileSystem.remove(keptWAL) } }
        func loadMovingAside(_ reason: String) throws -> Loaded {
            let aside = try JournalSalvage.moveAside(path, at: openedAt, keptWAL: keptWAL)
            log.error("journal: \(path) \(reason): moved aside to \(aside) with its WAL; starting a new journal with what can be read from it")
            return try load(path: path, directory: directory, destinations: destinations, leftovers: leftovers,
                            legacyOutbox: legacyOutbox, trackRetention: trackRetention, openedAt: openedAt,
                            salvaging: aside, highWater: highWater, sqliteVFS: sqliteVFS, log: log)
        }
        do {
            if let damage = highWater?.damage, FileSystem.exists(path) {
                return try loadMovingAside("was found damaged while in use (\(damage))")
            }
            do {
                return try load(path: path, directory: directory, destinations: destinations, leftovers: leftovers,
                                legacyOutbox: legacyOutbox, trackRetention: trackRetention, openedAt: openedAt,
                                salvaging: nil, highWater: highWater, sqliteVFS: sqliteVFS, log: log)
            } catch let error as SQLiteError where error.isDamage {
                return try loadMovingAside("is damaged (\(error.message))")
            }
        } catch let error as SQLiteError {
            throw .sqlite(error)
        } catch {
            throw error as! JournalError
        }
    }

    /// Opens the journal file (made 0600 before SQLite opens it; SQLite gives its -wal and -shm the
    /// same mode), checks every page, takes over an earlier version's files and reads the share and
    /// the queues. With `salvaging` (a damaged journal moved aside), the new file is filled with what
    /// can be read from it first.
    /// - Throws: `SQLiteError` (`isDamage` when the file is damaged) or `JournalError`.
    private static func load(path: String, directory: String, destinations: [String: QueuePolicy], leftovers: LeftoverPolicy,
                             legacyOutbox: String?, trackRetention: Duration?, openedAt: Timestamp, salvaging damaged: String?,
                             highWater: HighWaterMark?, sqliteVFS: String?, log: Logger) throws -> Loaded {
        let existed = FileSystem.exists(path)
        let file = try JournalFile(path: path)
        // A file created here is made durable at once (an fsync of its directory): a power cut must
        // not take the journal's file away under a commit that returned.
        if !existed {
            do { try syncDirectory(containing: path) } catch {
                file.close()
                throw JournalError.directory(error)
            }
        }
        let database = try SQLiteConnection(path: path, create: true, vfs: sqliteVFS)
        file.connection = database
        do {
            try configure(database)
            if let damaged {
                log.warning("journal: from \(damaged): \(JournalSalvage.salvage(from: damaged, into: database, policies: destinations))")
            } else if let complaint = try database.damage() {
                throw SQLiteError.damaged(path: path, operation: "check every page", message: complaint)
            }
            try LegacyState.takeOver(into: database, directory: directory, legacyOutbox: legacyOutbox,
                                     destinations: Set(destinations.keys), log: log)
            let reconciled = try reconcile(database, with: highWater, log: log)
            let share = try loadShare(database)
            try ShareIDStore.recordNamedElsewhere(in: database, openShare: share?.id)
            try adoptFormerQueues(database, configured: destinations, log: log)
            var openShareReceivers: ShareReceivers?
            if let share, let identities = try loadShareReceivers(share.id, database) {
                openShareReceivers = (share.id, identities)
            }
            let (queues, leftoverQueues) = try loadQueues(database, configured: destinations, leftovers: leftovers, log: log)
            var keys: [ShareID: Int64] = [:]
            try TrackStore.expire(before: trackRetention.map { openedAt - $0 }, keys: &keys, in: database)
            // Not through a test's VFS, which keeps the files' unsynced writes apart: only SQLite writes there.
            if sqliteVFS == nil {
                do { try WriteAheadLogFile.extendToWorkingSize(journalPath: path) } catch {
                    log.warning("journal: cannot write the WAL to its working size (\(error)); commits then grow it, which costs a wait more each")
                }
            }
            return Loaded(database: database, file: file, share: share, queues: queues, leftoverQueues: leftoverQueues,
                          openShareReceivers: openShareReceivers, newestTrackFix: try TrackStore.newest(in: database),
                          highWater: reconciled)
        } catch {
            file.close()
            throw error
        }
    }

    /// The connection's settings and the schema.
    private static func configure(_ database: SQLiteConnection) throws(SQLiteError) {
        // One process per journal: the exclusive lock is taken by the first write and held until close.
        try database.execute("PRAGMA locking_mode=EXCLUSIVE")
        // Small pages: each commit appends the few pages it touched (share, event, queue), 512 bytes
        // each, to the WAL (bench/durability.sh measures what reaches the disk).
        try database.execute("PRAGMA page_size=512")
        let mode = try database.queryText("PRAGMA journal_mode=WAL")
        guard mode == "wal" else {
            throw SQLiteError(path: database.path, operation: "PRAGMA journal_mode=WAL", code: 1,
                              message: "journal mode is \(mode ?? "unknown")")
        }
        try database.execute("PRAGMA synchronous=FULL")
        try database.execute("PRAGMA journal_size_limit=\(WriteAheadLogFile.sizeLimit)")
        try database.transaction { () throws(SQLiteError) in
            // Rows in BinaryRecord's formats: the share's state, and each event once for every queue.
            try database.execute("CREATE TABLE IF NOT EXISTS share (id INTEGER PRIMARY KEY CHECK (id = 1), record BLOB NOT NULL)")
            try database.execute("CREATE TABLE IF NOT EXISTS events (position INTEGER PRIMARY KEY, record BLOB NOT NULL)")
            try database.execute("""
                CREATE TABLE IF NOT EXISTS queue (
                    destination TEXT NOT NULL, position INTEGER NOT NULL, share_id TEXT NOT NULL,
                    kind INTEGER NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (destination, position)) WITHOUT ROWID
                """)
            try database.execute("CREATE TABLE IF NOT EXISTS destinations (name TEXT PRIMARY KEY, state BLOB)")
            try database.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            try TrackStore.create(database)
            try ShareIDStore.create(database)
        }
    }

    /// `share`'s receivers as recorded when it started (`receivers SHARE`: one identity a line;
    /// journals before issue 29 kept only the open share's, as `share-receivers`: its id, then
    /// one identity a line).
    static func loadShareReceivers(_ share: ShareID, _ database: SQLiteConnection) throws(SQLiteError) -> Set<String>? {
        let text = try database.withStatement("SELECT value FROM main.meta WHERE key = ?1", [.text(receiversKey(share))]) {
            statement throws(SQLiteError) in try statement.step() ? statement.text(0) : nil
        }
        if let text { return Set(text.split(separator: "\n").map(String.init)) }
        let legacy = try database.withStatement("SELECT value FROM main.meta WHERE key = 'share-receivers'") { statement throws(SQLiteError) in
            try statement.step() ? statement.text(0) : nil
        }
        guard let lines = legacy?.split(separator: "\n", omittingEmptySubsequences: false), lines.first.map(String.init) == share.rawValue else {
            return nil
        }
        return Set(lines.dropFirst().map(String.init))
    }

    /// The meta key of a share's receivers.
    static func receiversKey(_ share: ShareID) -> String { "receivers " + share.rawValue }

    /// The meta key of the position before which a destination is done with every event.
    static func doneBeforeKey(_ destination: String) -> String { "done-before " + destination }

    /// The journal against the high-water mark (what left the process, kept outside the WAL): when
    /// its newest event is older than the mark's, events that left the process are not in it (its
    /// WAL damaged, or frames lost). They cannot be delivered again; their seqs must not be given
    /// again with other content: the share goes on from the mark's state (or none is resumed when
    /// none was open after them), with one loud line. Returns the mark for what the journal holds.
    private static func reconcile(_ database: SQLiteConnection, with mark: HighWaterMark?, log: Logger) throws(SQLiteError) -> HighWaterMark {
        var holds = HighWaterMark()
        try database.withStatement("SELECT position, record FROM events ORDER BY position DESC LIMIT 1") { statement throws(SQLiteError) in
            guard try statement.step() else { return }
            holds.position = statement.int64(0)
            if let event = BinaryRecord.decodeEvent(statement.blob(1)) { (holds.newestShare, holds.newestSeq) = (event.shareID, event.seq) }
        }
        let share = try loadShare(database)
        holds.share = share
        guard let mark, mark.position > holds.position else { return holds }
        try database.transaction { () throws(SQLiteError) -> Void in
            if let resumed = mark.share {
                try database.run("INSERT OR REPLACE INTO share (id, record) VALUES (1, ?1)", [.blob(BinaryRecord.encode(resumed))])
            } else {
                try database.run("DELETE FROM share")
            }
        }
        holds.share = mark.share
        let newest = mark.newestShare.map { "evt_\($0)_\(mark.newestSeq)" } ?? "position \(mark.position)"
        let inJournal = share.map { "\($0.id) at seq \($0.seq)" } ?? "no share"
        let goesOn = mark.share.map { "share \($0.id) goes on after seq \($0.seq)" } ?? "no share was open after them, none is resumed"
        log.error("journal: \(mark.position - holds.position) event(s) that had left the process are not in the journal "
            + "(the newest, \(newest); the journal holds \(inJournal)): its WAL was damaged or lost. Those that had not "
            + "reached their receivers cannot be delivered; no seq is given again with other content: \(goesOn)")
        return holds
    }

    private static func loadShare(_ database: SQLiteConnection) throws(SQLiteError) -> ShareSnapshot? {
        let bytes = try database.withStatement("SELECT record FROM share WHERE id = 1") { statement throws(SQLiteError) in
            try statement.step() ? statement.blob(0) : nil
        }
        guard let bytes else { return nil }
        guard let share = BinaryRecord.decodeShare(bytes) else {
            throw SQLiteError(path: database.path, operation: "read the share", code: 11, message: "not a share record")
        }
        return share
    }

    /// The configured destinations' queues (registered, with their counts and states), after the
    /// leftovers are settled (`settleLeftovers`); and the leftover queues kept.
    private static func loadQueues(_ database: SQLiteConnection, configured: [String: QueuePolicy], leftovers policy: LeftoverPolicy,
                                   log: Logger) throws(SQLiteError) -> ([String: Queue], [LeftoverQueue]) {
        var queues: [String: Queue] = [:]
        var kept: [LeftoverQueue] = []
        try database.transaction { () throws(SQLiteError) in
            for (name, policy) in configured {
                try database.run("INSERT OR IGNORE INTO destinations (name, state) VALUES (?1, NULL)", [.text(name)])
                queues[name] = Queue(policy: policy)
            }
            kept = try settleLeftovers(database, configured: Set(configured.keys), policy: policy, log: log)
            for name in configured.keys {
                try database.withStatement("""
                    SELECT count(*), coalesce(sum(size), 0), (SELECT state FROM destinations WHERE name = ?1)
                    FROM queue WHERE destination = ?1
                    """, [.text(name)]) { statement throws(SQLiteError) in
                    guard try statement.step() else { return }
                    queues[name]!.pending = Int(statement.int64(0))
                    queues[name]!.pendingBytes = Int(statement.int64(1))
                    queues[name]!.state = statement.isNull(2) ? nil : statement.blob(2)
                }
                if queues[name]!.pending > 0 { log.info("\(name): \(queues[name]!.pending) undelivered event(s) in the journal; resuming") }
            }
        }
        return (queues, kept)
    }

    /// Commits what is waiting and closes the database; later calls throw `.closed` (or do nothing).
    ///
    /// Before it closes, the pages are read back from the file once more (damage found now is
    /// said, and `lastingFailure` tells the daemon); a journal whose file was removed while open
    /// is written back under its path, so that the next start finds what it held.
    package func close() {
        guard !closed else { return }
        closing = true
        if failure == nil { try? verifyPages() }
        if case .damaged = failure {
            // Nothing more is written; the file keeps what its last checkpoint put there.
            database.keepWALOutOfTheFileAtClose()
        } else {
            do {
                try flush()
                if collectable > 0 { try database.transaction { () throws(SQLiteError) in try collectEvents() } }
            } catch { log.error("journal: cannot commit the last acknowledgements: \(error)") }
        }
        if case .fileGone = failure {
            do {
                let written = try file.writeBack(database, at: now())
                log.warning("journal: wrote what it held back to \(written) (its file was removed while in use); "
                    + "the next start goes on from there")
            } catch {
                log.error("journal: cannot write what it held back: \(error); the share and its undelivered events are lost")
            }
        }
        closed = true
        // A flush that failed (a full disk) left the acknowledgement timer armed: it would keep the
        // journal, and its thread, for up to `ackFlushDelay` to do nothing.
        inbox.withLock { $0.disarmTimer() }
        file.close()  // the connection, then the file's descriptor
        lock.unlockAndClose()
        // The thread stays until the journal is gone (deinit): a timer's task may still call in.
    }
}
