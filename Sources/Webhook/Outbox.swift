import CSQLite
import Delivery
import LiveLocation

/// One queued event as the outbox holds it.
struct OutboxEntry: Sendable, Equatable {
    /// Insertion order: delivery order.
    var position: Int64
    /// The `webhook-id`, fixed when the event was queued.
    var webhookID: String
    var body: [UInt8]
    var kind: OutboxEntry.Kind

    enum Kind: Int32, Sendable {
        /// An `updated` that is not the share's last: may be dropped by policy or bound.
        case update = 0
        /// The share's final `updated` (no longer active): never dropped.
        case finalUpdate = 1
        /// `ended`: never dropped.
        case ended = 2
    }
}

/// What queuing one event did.
struct EnqueueResult: Sendable {
    var inserted: Bool
    var superseded: Int
    var droppedOverBound: Int
    /// True when the bound is exceeded and only events that are never dropped are left.
    var overBoundWithOnlyFinals: Bool
}

/// The durable queue of undelivered events: an SQLite database in WAL mode with synchronous=FULL,
/// so that a committed event survives a crash or power loss. Every failure throws
/// `WebhookError.outbox`, which is fatal.
///
/// Not thread-safe: owned by one actor.
final class Outbox {
    let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private(set) var count = 0
    private(set) var bytes = 0

    init(path: String) throws {
        self.path = path
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        db = handle
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            db = nil
            throw WebhookError.outbox(path: path, operation: "open", code: code, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        // One process per outbox: the exclusive lock is taken by the first write below and held
        // until close, so a second sink on the same file fails loudly ("database is locked").
        try execute("PRAGMA locking_mode=EXCLUSIVE")
        let mode = try queryText("PRAGMA journal_mode=WAL")
        guard mode == "wal" else {
            throw WebhookError.outbox(path: path, operation: "PRAGMA journal_mode=WAL", code: SQLITE_ERROR,
                                      message: "journal mode is \(mode ?? "unknown")")
        }
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA journal_size_limit=4194304")
        try execute("""
            CREATE TABLE IF NOT EXISTS outbox (
                position INTEGER PRIMARY KEY AUTOINCREMENT,
                webhook_id TEXT NOT NULL UNIQUE,
                share_id TEXT NOT NULL,
                kind INTEGER NOT NULL,
                body BLOB NOT NULL
            )
            """)
        try execute("CREATE INDEX IF NOT EXISTS outbox_share_kind ON outbox (share_id, kind)")
        try execute("CREATE INDEX IF NOT EXISTS outbox_kind ON outbox (kind, position)")
        let totals = try prepare("SELECT count(*), coalesce(sum(length(body)), 0) FROM outbox")
        defer { sqlite3_reset(totals) }
        guard try step(totals, "count outbox") else { return }
        count = Int(sqlite3_column_int64(totals, 0))
        bytes = Int(sqlite3_column_int64(totals, 1))
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(db)
    }

    /// Stores `entry` (position ignored) in one committed transaction, applying the backlog policy and
    /// the bounds. `inFlight` is never dropped. Idempotent: a webhook-id already queued is kept as is.
    func enqueue(_ entry: OutboxEntry, shareID: ShareID, policy: BacklogPolicy,
                 maxEvents: Int, maxBytes: Int, inFlight: Int64?) throws -> EnqueueResult {
        var result = EnqueueResult(inserted: false, superseded: 0, droppedOverBound: 0, overBoundWithOnlyFinals: false)
        let (countBefore, bytesBefore) = (count, bytes)
        try execute("BEGIN IMMEDIATE")
        do {
            let insert = try prepare("INSERT OR IGNORE INTO outbox (webhook_id, share_id, kind, body) VALUES (?1, ?2, ?3, ?4)")
            defer { sqlite3_reset(insert) }
            try bindText(insert, 1, entry.webhookID)
            try bindText(insert, 2, shareID.rawValue)
            try check(sqlite3_bind_int(insert, 3, entry.kind.rawValue), "bind")
            try entry.body.withUnsafeBytes { body in
                try check(csqlite_bind_blob_transient(insert, 4, body.baseAddress, Int32(body.count)), "bind")
            }
            _ = try step(insert, "insert event")
            result.inserted = sqlite3_changes(db) == 1
            guard result.inserted else {
                try execute("COMMIT")
                return result
            }
            let position = sqlite3_last_insert_rowid(db)
            count += 1
            bytes += entry.body.count

            if policy == .latest, entry.kind != .ended {
                let supersede = try prepare("""
                    DELETE FROM outbox WHERE share_id = ?1 AND kind = 0 AND position < ?2 AND position IS NOT ?3
                    RETURNING length(body)
                    """)
                defer { sqlite3_reset(supersede) }
                try bindText(supersede, 1, shareID.rawValue)
                try check(sqlite3_bind_int64(supersede, 2, position), "bind")
                try bindOptional(supersede, 3, inFlight)
                while try step(supersede, "drop superseded updates") {
                    result.superseded += 1
                    count -= 1
                    bytes -= Int(sqlite3_column_int64(supersede, 0))
                }
            }

            if count > maxEvents || bytes > maxBytes {
                let dropOldest = try prepare("""
                    DELETE FROM outbox WHERE position = (
                        SELECT position FROM outbox WHERE kind = 0 AND position IS NOT ?1 ORDER BY position LIMIT 1)
                    RETURNING length(body)
                    """)
                while count > maxEvents || bytes > maxBytes {
                    defer { sqlite3_reset(dropOldest) }
                    try bindOptional(dropOldest, 1, inFlight)
                    guard try step(dropOldest, "drop oldest update over bound") else {
                        result.overBoundWithOnlyFinals = true
                        break
                    }
                    result.droppedOverBound += 1
                    count -= 1
                    bytes -= Int(sqlite3_column_int64(dropOldest, 0))
                    _ = try step(dropOldest, "drop oldest update over bound")
                }
            }
            try execute("COMMIT")
        } catch {
            (count, bytes) = (countBefore, bytesBefore)
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
        return result
    }

    /// The oldest queued event, if any.
    func first() throws -> OutboxEntry? {
        let select = try prepare("SELECT position, webhook_id, kind, body FROM outbox ORDER BY position LIMIT 1")
        defer { sqlite3_reset(select) }
        guard try step(select, "read oldest event") else { return nil }
        let position = sqlite3_column_int64(select, 0)
        let id = String(cString: sqlite3_column_text(select, 1))
        let kind = OutboxEntry.Kind(rawValue: sqlite3_column_int(select, 2)) ?? .update
        let length = Int(sqlite3_column_bytes(select, 3))
        let body = length == 0 ? [] : Array(UnsafeRawBufferPointer(start: sqlite3_column_blob(select, 3), count: length))
        return OutboxEntry(position: position, webhookID: id, body: body, kind: kind)
    }

    /// Removes a delivered (or rejected) event; committed before it returns.
    func remove(position: Int64) throws {
        let delete = try prepare("DELETE FROM outbox WHERE position = ?1 RETURNING length(body)")
        defer { sqlite3_reset(delete) }
        try check(sqlite3_bind_int64(delete, 1, position), "bind")
        while try step(delete, "remove delivered event") {
            count -= 1
            bytes -= Int(sqlite3_column_int64(delete, 0))
        }
    }

    // MARK: SQLite plumbing

    private func prepare(_ sql: String) throws -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), "prepare")
        guard let statement else { throw failure("prepare", SQLITE_ERROR) }
        statements[sql] = statement
        return statement
    }

    /// Steps once: true for a row, false when done.
    private func step(_ statement: OpaquePointer, _ operation: String) throws -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(operation, code)
        }
    }

    private func execute(_ sql: String) throws {
        let statement = try prepare(sql)
        defer { sqlite3_reset(statement) }
        while try step(statement, sql) {}
    }

    private func queryText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        defer { sqlite3_reset(statement) }
        guard try step(statement, sql), let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    private func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: String) throws {
        var text = text
        try text.withUTF8 { utf8 in
            try utf8.withMemoryRebound(to: CChar.self) { chars in
                try check(csqlite_bind_text_transient(statement, index, chars.baseAddress, Int32(chars.count)), "bind")
            }
        }
    }

    private func bindOptional(_ statement: OpaquePointer, _ index: Int32, _ value: Int64?) throws {
        try check(value.map { sqlite3_bind_int64(statement, index, $0) } ?? sqlite3_bind_null(statement, index), "bind")
    }

    private func check(_ code: Int32, _ operation: String) throws {
        guard code == SQLITE_OK else { throw failure(operation, code) }
    }

    private func failure(_ operation: String, _ code: Int32) -> WebhookError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return .outbox(path: path, operation: operation, code: code, message: message)
    }
}
