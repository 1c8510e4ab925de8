import CSQLite
import LiveLocation

/// One SQLite connection with cached prepared statements. Not thread-safe: its owner (the journal's
/// actor) serializes every call. Every failure throws `SQLiteError` with the operation and SQLite's
/// message.
final class SQLiteConnection {
    let path: String
    private var db: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    /// Whether a COMMIT syncs the WAL now (`PRAGMA synchronous=FULL`) or leaves that to a later
    /// one (NORMAL), as last set by `transaction`; nil until the first. Set only when it changes:
    /// in a run of unsynced commits, two statements less per commit.
    private var commitsSync: Bool?

    /// Opens (or, with `create`, creates) the database at `path`, through the SQLite VFS named `vfs`
    /// (nil: the default, unix; a test may name one that simulates power cuts).
    init(path: String, create: Bool, readOnly: Bool = false, vfs: String? = nil) throws(SQLiteError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        let code = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, vfs)
        db = handle
        guard code == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            db = nil
            throw SQLiteError(path: path, operation: "open", code: code, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll()
        sqlite3_close(db)
        db = nil
    }

    /// Runs `sql` (no parameters) to its end.
    func execute(_ sql: String) throws(SQLiteError) {
        let statement = try prepare(sql)
        defer { sqlite3_reset(statement) }
        while try step(statement, sql) {}
    }

    /// The first column of the first row of `sql`, as text.
    func queryText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        defer { sqlite3_reset(statement) }
        guard try step(statement, sql), let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    /// `body` inside BEGIN IMMEDIATE … COMMIT; rolled back when it (or the commit) throws. The
    /// COMMIT syncs the WAL (`synced`, the default): on return the transaction is on disk, and so is
    /// every one before it. Unsynced, it is written but may be lost to a power cut until a later
    /// synced one (WAL mode keeps the database consistent either way).
    func transaction<T>(synced: Bool = true, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        if commitsSync != synced {
            try execute(synced ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            commitsSync = synced
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = sqlite3_exec(db, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// A cached prepared statement for `sql`: bind, step, then `reset` it (`withStatement` does).
    func prepare(_ sql: String) throws(SQLiteError) -> OpaquePointer {
        if let cached = statements[sql] { return cached }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), "prepare")
        guard let statement else { throw failure("prepare", SQLITE_ERROR) }
        statements[sql] = statement
        return statement
    }

    /// Prepares `sql`, binds `values` (1-based, in order), runs `body` and resets the statement.
    func withStatement<T>(_ sql: String, _ values: [SQLiteValue] = [],
                          _ body: (Statement) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        let statement = try prepare(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (index, value) in values.enumerated() { try bind(statement, Int32(index + 1), value) }
        return try body(Statement(connection: self, handle: statement, sql: sql))
    }

    /// Runs `sql` with `values` to its end; returns the number of rows changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        try withStatement(sql, values) { statement throws(SQLiteError) in
            while try statement.step() {}
            return Int(sqlite3_changes(db))
        }
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// Drops the connection's cached pages, so that the next reads come from the file (and the
    /// WAL) again: with `locking_mode=EXCLUSIVE` the cache is otherwise trusted for ever, and damage
    /// done to the file by others would only show at the next start.
    func dropCachedPages() { sqlite3_db_release_memory(db) }

    /// Closing will not checkpoint the WAL into the file: a WAL found damaged must not overwrite
    /// the file's sound pages (at the next start SQLite ignores the frames that fail their checksum).
    func keepWALOutOfTheFileAtClose() { _ = csqlite_no_checkpoint_on_close(db) }

    /// `PRAGMA quick_check` over every page, read from the file (the cache dropped first): nil when
    /// the database is sound, else SQLite's first complaint.
    /// - Throws: `SQLiteError` when the pages cannot even be read (corrupt, not a database, I/O).
    func damage() throws(SQLiteError) -> String? {
        dropCachedPages()
        let result = try withStatement("PRAGMA quick_check(1)") { statement throws(SQLiteError) in
            try statement.step() ? statement.text(0) : "no answer"
        }
        // SQLite's complaint can span lines ("*** in database main ***\nPage 9: …"): one line.
        return result == "ok" ? nil : result.split(separator: "\n").joined(separator: "; ")
    }

    struct Statement {
        let connection: SQLiteConnection
        let handle: OpaquePointer
        let sql: String

        /// Steps once: true for a row, false when done.
        func step() throws(SQLiteError) -> Bool { try connection.step(handle, sql) }
        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
        var columnCount: Int32 { sqlite3_column_count(handle) }
        /// Column `column` of the current row, as what it holds.
        func value(_ column: Int32) -> SQLiteValue {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: .integer(int64(column))
            case SQLITE_FLOAT: .real(double(column))
            case SQLITE_TEXT: .text(text(column))
            case SQLITE_BLOB: .blob(blob(column))
            default: .null
            }
        }
        func text(_ column: Int32) -> String {
            sqlite3_column_text(handle, column).map { String(cString: $0) } ?? ""
        }
        func blob(_ column: Int32) -> [UInt8] {
            let length = Int(sqlite3_column_bytes(handle, column))
            guard length > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: bytes, count: length))
        }
    }

    fileprivate func step(_ statement: OpaquePointer, _ operation: String) throws(SQLiteError) -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw failure(operation, code)
        }
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(statement, index)
        case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
        case .real(let number): code = sqlite3_bind_double(statement, index, number)
        case .text(var text):
            code = text.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    csqlite_bind_text_transient(statement, index, chars.baseAddress, Int32(chars.count))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { csqlite_bind_blob_transient(statement, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count)) }
        }
        try check(code, "bind")
    }

    private func check(_ code: Int32, _ operation: String) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw failure(operation, code) }
    }

    private func failure(_ operation: String, _ code: Int32) -> SQLiteError {
        let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return SQLiteError(path: path, operation: operation, code: code, message: message)
    }
}

/// SQLITE_IOERR_SHORT_READ (a macro Swift does not import): a page the file no longer holds (truncated).
private let SQLITE_IOERR_SHORT_READ_CODE: Int32 = SQLITE_IOERR | (2 << 8)

/// A value bound to a statement's parameter.
enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// An SQLite call that failed: which file, which operation, SQLite's code and message.
package struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    package var path: String
    package var operation: String
    package var code: Int32
    package var message: String

    /// A damaged file's error (SQLITE_CORRUPT), for damage found by other means than a failed call.
    static func damaged(path: String, operation: String, message: String) -> SQLiteError {
        SQLiteError(path: path, operation: operation, code: SQLITE_CORRUPT, message: message)
    }

    /// True when the file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB, an integrity check's
    /// complaint) rather than unwritable: the journal is moved aside at the next start.
    package var isDamage: Bool {
        code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB || code == SQLITE_IOERR_SHORT_READ_CODE
    }

    /// True when the disk (or the file system's quota) is full: the journal can recover once there is room.
    package var isDiskFull: Bool { code & 0xFF == SQLITE_FULL || (code & 0xFF == SQLITE_IOERR && message.containsUTF8("disk")) }

    package var description: String { "\(path): \(operation): \(message) (SQLite code \(code))" }
}
