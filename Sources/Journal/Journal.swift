#if canImport(Glibc)
import Glibc
#endif
import Delivery
import JSONCoding
import LiveLocation
import SystemIO

/// The durable store of a state directory: the active share's state and one queue per durable
/// destination, in one SQLite database (`journal.sqlite`, WAL, `synchronous=FULL`, mode 0600,
/// locked by one process).
///
/// Each batch of the broadcaster is committed in one transaction (its events, a queue entry per
/// destination, the share's state after it) before anything downstream sees it. Acknowledgements are
/// group-committed: kept in memory and written with the next batch, or at most `ackFlushDelay` later,
/// or at `close()`; a crash in between re-sends those few events with the same ids (at least once).
///
/// The actor runs on a thread of its own: SQLite's commits and fsyncs never block the cooperative
/// pool or the share's thread.
package actor Journal {
    /// `journal.sqlite` in the state directory.
    package nonisolated let path: String
    private let executor: ThreadExecutor
    private let database: SQLiteConnection
    private let log: @Sendable (String) -> Void
    private var queues: [String: Queue]
    private var share: ShareSnapshot?
    private var flushScheduled = false
    private var closed = false

    /// How long an acknowledgement may wait in memory for the next commit.
    package static let ackFlushDelay: Duration = .seconds(1)

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A destination's queue as the journal keeps it in memory.
    private struct Queue {
        var policy: QueuePolicy
        var pending = 0
        var pendingBytes = 0
        var acknowledged = 0
        var dropped = 0
        var state: [UInt8]?
        /// Positions acknowledged or dropped but not yet committed.
        var unflushed: [Int64] = []
        var stateUnflushed = false
    }

    /// Opens (or creates) the journal of `directory` for `destinations` (name → queue policy).
    ///
    /// A queue of a destination no longer configured is dropped (logged with its size). The first
    /// time, an earlier version's `share.json` and webhook outbox (`legacyOutbox`) are taken over
    /// and then removed (renamed `.migrated`).
    /// - Throws: `JournalError` when the directory or the database cannot be opened or written.
    package init(directory: String, destinations: [String: QueuePolicy], legacyOutbox: String? = nil,
                 log: @escaping @Sendable (String) -> Void) throws(JournalError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .directory(SystemError("mkdir", target: directory))
        }
        let path = directory + "/journal.sqlite"
        self.path = path
        self.log = log
        do { executor = try ThreadExecutor(name: "livelocd-journal") } catch { throw .directory(error) }
        // The file is created 0600 before SQLite opens it; SQLite gives its -wal and -shm the same mode.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            executor.shutdown()
            throw .directory(SystemError("open", target: path))
        }
        _ = fchmod(fd, 0o600)
        Glibc.close(fd)
        do {
            database = try SQLiteConnection(path: path, create: true)
            try Self.configure(database)
            try LegacyState.takeOver(into: database, directory: directory, legacyOutbox: legacyOutbox,
                                     destinations: Set(destinations.keys), log: log)
            share = try Self.loadShare(database)
            queues = try Self.loadQueues(database, configured: destinations, log: log)
        } catch let error as SQLiteError {
            executor.shutdown()
            throw .sqlite(error)
        } catch {
            executor.shutdown()
            throw error as! JournalError
        }
    }

    deinit {
        // The connection closes with its last reference (SQLiteConnection's deinit).
        executor.shutdown()
    }

    /// The share that was active when the journal was last written, if any.
    package var activeShare: ShareSnapshot? { share }

    /// Commits `batch`: its events (one queue entry per destination, backlog policy and bounds
    /// applied), the share's state after it, and any acknowledgements waiting. On return it is on disk.
    /// - Throws: `JournalError` (disk full, I/O error); nothing of the batch is then committed and
    ///   the same batch may be committed again later.
    package func commit(_ batch: ShareBatch) throws(JournalError) {
        guard !closed else { throw .closed }
        var changes: [String: (pending: Int, bytes: Int, dropped: Int)] = [:]
        do {
            try database.transaction { () throws(SQLiteError) in
                for event in batch.events {
                    let json = Array(event.jsonLineBytes.dropLast())
                    let kind = EventKind(event)
                    try database.run("INSERT INTO events (share_id, seq, kind, json) VALUES (?1, ?2, ?3, ?4)",
                                     [.text(event.shareID.rawValue), .integer(Int64(event.seq)), .integer(kind.rawValue), .blob(json)])
                    let position = database.lastInsertRowID
                    for (name, queue) in queues {
                        var change = changes[name] ?? (queue.pending, queue.pendingBytes, 0)
                        if queue.policy.backlog == .latest, kind != .ended {
                            try database.withStatement("""
                                DELETE FROM queue WHERE destination = ?1 AND share_id = ?2 AND kind = 0 RETURNING size
                                """, [.text(name), .text(event.shareID.rawValue)]) { statement throws(SQLiteError) in
                                while try statement.step() {
                                    change.pending -= 1
                                    change.bytes -= Int(statement.int64(0))
                                    change.dropped += 1
                                }
                            }
                        }
                        try database.run("INSERT INTO queue (destination, position, share_id, kind, size) VALUES (?1, ?2, ?3, ?4, ?5)",
                                         [.text(name), .integer(position), .text(event.shareID.rawValue), .integer(kind.rawValue), .integer(Int64(json.count))])
                        change.pending += 1
                        change.bytes += json.count
                        while change.pending > queue.policy.maxEvents || change.bytes > queue.policy.maxBytes {
                            let size = try database.withStatement("""
                                DELETE FROM queue WHERE destination = ?1 AND position = (
                                    SELECT position FROM queue WHERE destination = ?1 AND kind = 0 ORDER BY position LIMIT 1)
                                RETURNING size
                                """, [.text(name)]) { statement throws(SQLiteError) in try statement.step() ? Int(statement.int64(0)) : nil }
                            guard let size else { break }
                            change.pending -= 1
                            change.bytes -= size
                            change.dropped += 1
                        }
                        changes[name] = change
                    }
                }
                if let snapshot = batch.share {
                    let bytes: [UInt8]
                    do { bytes = try JSON.encode(snapshot) } catch {
                        throw SQLiteError(path: path, operation: "encode share", code: 1, message: "\(error)")
                    }
                    try database.run("INSERT OR REPLACE INTO share (id, snapshot) VALUES (1, ?1)", [.blob(bytes)])
                } else if share != nil {
                    try database.run("DELETE FROM share")
                }
                try writeAcknowledgements()
            }
        } catch {
            throw .sqlite(error)
        }
        share = batch.share
        for (name, change) in changes {
            queues[name]!.pending = change.pending
            queues[name]!.pendingBytes = change.bytes
            if change.dropped > 0 {
                queues[name]!.dropped += change.dropped
                log("\(name): \(change.dropped) stale or over-bound update(s) dropped from its queue "
                    + "(\(queues[name]!.dropped) so far; finals are never dropped)")
            }
        }
        markAcknowledgementsFlushed()
    }

    /// Up to `limit` queued events of `destination` after `position`, in order.
    package func pending(_ destination: String, after position: Int64, limit: Int) throws(JournalError) -> [QueuedEvent] {
        guard let queue = queues[destination] else { return [] }
        do {
            return try database.withStatement("""
                SELECT q.position, e.json FROM queue q JOIN events e ON e.position = q.position
                WHERE q.destination = ?1 AND q.position > ?2 ORDER BY q.position LIMIT ?3
                """, [.text(destination), .integer(position), .integer(Int64(limit))]) { statement throws(SQLiteError) in
                var result: [QueuedEvent] = []
                while try statement.step() {
                    let position = statement.int64(0)
                    let json = statement.blob(1)
                    guard !queue.unflushed.contains(position) else { continue }
                    guard let event = EventLine.decode(json) else {
                        throw SQLiteError(path: path, operation: "read event \(position)", code: 11, message: "not a share event")
                    }
                    result.append(QueuedEvent(position: position, event: event, json: json, destinationState: queue.state))
                }
                return result
            }
        } catch {
            throw .sqlite(error)
        }
    }

    /// Records that `destination` is done with the event at `position` (delivered, or dropped when
    /// `dropped`), with the destination's new state if any. Committed with the next batch or within
    /// `ackFlushDelay`.
    package func acknowledge(_ destination: String, position: Int64, dropped: Bool = false, state: [UInt8]? = nil) {
        guard queues[destination] != nil else { return }
        queues[destination]!.unflushed.append(position)
        if dropped { queues[destination]!.dropped += 1 } else { queues[destination]!.acknowledged += 1 }
        if let state {
            queues[destination]!.state = state
            queues[destination]!.stateUnflushed = true
        }
        scheduleFlush()
    }

    /// Commits the acknowledgements waiting in memory (at once; normally they ride with a batch).
    package func flush() throws(JournalError) {
        guard !closed, queues.values.contains(where: { !$0.unflushed.isEmpty || $0.stateUnflushed }) else { return }
        do { try database.transaction { () throws(SQLiteError) in try writeAcknowledgements() } } catch { throw .sqlite(error) }
        markAcknowledgementsFlushed()
    }

    /// A destination's queue in numbers, for `liveloc status`.
    package func queueStatus(_ destination: String) -> QueueStatus? {
        guard let queue = queues[destination] else { return nil }
        return QueueStatus(pending: queue.pending - queue.unflushed.count, pendingBytes: queue.pendingBytes,
                           acknowledged: queue.acknowledged, dropped: queue.dropped)
    }

    /// Commits what is waiting and closes the database; later calls throw `.closed`.
    package func close() {
        guard !closed else { return }
        do { try flush() } catch { log("journal: cannot commit the last acknowledgements: \(error)") }
        closed = true
        database.close()
        executor.shutdown()
    }

    // MARK: - Private

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        Task {
            try? await Task.sleep(for: Self.ackFlushDelay)
            await self.flushFromTimer()
        }
    }

    private func flushFromTimer() {
        flushScheduled = false
        do { try flush() } catch {
            log("journal: cannot commit acknowledgements (\(error)); retrying with the next commit")
            scheduleFlush()
        }
    }

    private func writeAcknowledgements() throws(SQLiteError) {
        var removedAny = false
        for (name, queue) in queues where !queue.unflushed.isEmpty || queue.stateUnflushed {
            for position in queue.unflushed {
                try database.withStatement("DELETE FROM queue WHERE destination = ?1 AND position = ?2 RETURNING size",
                                           [.text(name), .integer(position)]) { statement throws(SQLiteError) in
                    while try statement.step() {
                        queues[name]!.pending -= 1
                        queues[name]!.pendingBytes -= Int(statement.int64(0))
                        removedAny = true
                    }
                }
            }
            if queue.stateUnflushed {
                try database.run("UPDATE destinations SET state = ?2 WHERE name = ?1",
                                 [.text(name), queue.state.map { .blob($0) } ?? .null])
            }
        }
        if removedAny { try collectEvents() }
    }

    private func markAcknowledgementsFlushed() {
        for name in queues.keys {
            queues[name]!.unflushed.removeAll()
            queues[name]!.stateUnflushed = false
        }
    }

    /// Removes the events no queue refers to any more.
    private func collectEvents() throws(SQLiteError) {
        var oldest: Int64 = .max
        for name in queues.keys {
            let first = try database.withStatement("SELECT min(position) FROM queue WHERE destination = ?1", [.text(name)]) {
                statement throws(SQLiteError) in try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
            }
            if let first { oldest = min(oldest, first) }
        }
        if oldest == .max {
            try database.run("DELETE FROM events")
        } else {
            try database.run("DELETE FROM events WHERE position < ?1", [.integer(oldest)])
        }
    }

    private static func configure(_ database: SQLiteConnection) throws(SQLiteError) {
        // One process per journal: the exclusive lock is taken by the first write and held until close.
        try database.execute("PRAGMA locking_mode=EXCLUSIVE")
        // Small pages: each commit writes the few pages it touched, ~1 KiB each, to the WAL.
        try database.execute("PRAGMA page_size=1024")
        let mode = try database.queryText("PRAGMA journal_mode=WAL")
        guard mode == "wal" else {
            throw SQLiteError(path: database.path, operation: "PRAGMA journal_mode=WAL", code: 1,
                              message: "journal mode is \(mode ?? "unknown")")
        }
        try database.execute("PRAGMA synchronous=FULL")
        try database.execute("PRAGMA journal_size_limit=1048576")
        try database.transaction { () throws(SQLiteError) in
            try database.execute("CREATE TABLE IF NOT EXISTS share (id INTEGER PRIMARY KEY CHECK (id = 1), snapshot BLOB NOT NULL)")
            try database.execute("""
                CREATE TABLE IF NOT EXISTS events (
                    position INTEGER PRIMARY KEY, share_id TEXT NOT NULL, seq INTEGER NOT NULL,
                    kind INTEGER NOT NULL, json BLOB NOT NULL)
                """)
            try database.execute("""
                CREATE TABLE IF NOT EXISTS queue (
                    destination TEXT NOT NULL, position INTEGER NOT NULL, share_id TEXT NOT NULL,
                    kind INTEGER NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (destination, position)) WITHOUT ROWID
                """)
            try database.execute("CREATE TABLE IF NOT EXISTS destinations (name TEXT PRIMARY KEY, state BLOB)")
            try database.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        }
    }

    private static func loadShare(_ database: SQLiteConnection) throws(SQLiteError) -> ShareSnapshot? {
        let bytes = try database.withStatement("SELECT snapshot FROM share WHERE id = 1") { statement throws(SQLiteError) in
            try statement.step() ? statement.blob(0) : nil
        }
        guard let bytes else { return nil }
        do { return try JSON.decode(ShareSnapshot.self, from: bytes) } catch {
            throw SQLiteError(path: database.path, operation: "read the share", code: 11, message: "\(error)")
        }
    }

    private static func loadQueues(_ database: SQLiteConnection, configured: [String: QueuePolicy],
                                   log: @Sendable (String) -> Void) throws(SQLiteError) -> [String: Queue] {
        var queues: [String: Queue] = [:]
        try database.transaction { () throws(SQLiteError) in
            let known = try database.withStatement("SELECT name FROM destinations") { statement throws(SQLiteError) in
                var names: [String] = []
                while try statement.step() { names.append(statement.text(0)) }
                return names
            }
            for name in known where configured[name] == nil {
                let count = try database.run("DELETE FROM queue WHERE destination = ?1", [.text(name)])
                try database.run("DELETE FROM destinations WHERE name = ?1", [.text(name)])
                if count > 0 { log("journal: destination \(name) is no longer configured; dropped its \(count) undelivered event(s)") }
            }
            for (name, policy) in configured {
                try database.run("INSERT OR IGNORE INTO destinations (name, state) VALUES (?1, NULL)", [.text(name)])
                var queue = Queue(policy: policy)
                try database.withStatement("""
                    SELECT count(*), coalesce(sum(size), 0), (SELECT state FROM destinations WHERE name = ?1)
                    FROM queue WHERE destination = ?1
                    """, [.text(name)]) { statement throws(SQLiteError) in
                    guard try statement.step() else { return }
                    queue.pending = Int(statement.int64(0))
                    queue.pendingBytes = Int(statement.int64(1))
                    queue.state = statement.isNull(2) ? nil : statement.blob(2)
                }
                if queue.pending > 0 { log("\(name): \(queue.pending) undelivered event(s) in the journal; resuming") }
                queues[name] = queue
            }
        }
        return queues
    }
}

/// A destination's queue in numbers.
package struct QueueStatus: Sendable, Equatable {
    /// Events queued and not yet acknowledged.
    package var pending: Int
    /// Their JSON bytes.
    package var pendingBytes: Int
    /// Acknowledged since the journal was opened.
    package var acknowledged: Int
    /// Dropped since the journal was opened (backlog policy, bound, refused by the far end).
    package var dropped: Int
}
