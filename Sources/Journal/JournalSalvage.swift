import Delivery
import LiveLocation
import SystemIO

/// What happens to a damaged journal at start-up (issue 23: one damaged WAL made every later start
/// exit 1 with `database disk image is malformed`, and the undelivered events were lost): it is
/// moved aside with its WAL, a new one is made, and whatever can be read from the damaged one is
/// copied into it, so that the daemon starts, resumes the share and delivers what was queued.
enum JournalSalvage {
    /// What was kept of a damaged journal.
    struct Kept: CustomStringConvertible {
        var share = false
        var events = 0
        var queueEntries = 0
        /// Kept events queued again, and for how many receivers.
        var requeued = 0
        var requeuedReceivers = 0
        /// Tables of which not every row could be read: name and SQLite's complaint.
        var unreadable: [(table: String, reason: String)] = []

        var description: String {
            var text = "kept \(share ? "the active share" : "no share"), \(events) event(s) and \(queueEntries) queue entr\(queueEntries == 1 ? "y" : "ies")"
            if requeued > 0 {
                text += "; queued \(requeued) kept event(s) again for \(requeuedReceivers) receiver(s), every one newer than "
                    + "its receiver's last known acknowledgement (at least once: one delivered before goes again, with the same id)"
            }
            if !unreadable.isEmpty {
                text += "; not all of " + unreadable.map { "\($0.table) (\($0.reason))" }.joined(separator: ", ") + " could be read"
            }
            return text
        }
    }

    /// `prefix` + `YYYYMMDDTHHMMSSZ` (UTC), with `-2`, `-3`, … when that name is taken.
    static func stamped(_ prefix: String, at now: Timestamp) -> String {
        let name = prefix + String(now.iso8601.filter { $0 != "-" && $0 != ":" }.prefix(15)) + "Z"
        var candidate = name
        var suffix = 1
        while FileSystem.exists(candidate) {
            suffix += 1
            candidate = name + "-\(suffix)"
        }
        return candidate
    }

    /// Before SQLite opens the journal: a second name for its `-wal`, if it has one. SQLite removes
    /// the WAL of a file it finds damaged when it closes it; this name keeps the WAL for
    /// `moveAside`. Returns the name, or nil when there is no WAL.
    static func keepWAL(of path: String) -> String? {
        let kept = path + "-wal.at-start"
        try? FileSystem.remove(kept)
        do { try FileSystem.link(path + "-wal", as: kept) } catch { return nil }
        return kept
    }

    /// Renames `path` and its WAL (as `keepWAL` kept it) to `path.damaged-YYYYMMDDTHHMMSSZ` (and
    /// `…-wal`, so that SQLite still reads them together) and removes its `-wal` and `-shm`.
    /// Returns the new path.
    static func moveAside(_ path: String, at now: Timestamp, keptWAL: String?) throws(JournalError) -> String {
        let aside = stamped(path + ".damaged-", at: now)
        let wal = keptWAL ?? path + "-wal"
        do {
            if FileSystem.exists(wal) { try FileSystem.rename(wal, to: aside + "-wal") }
            try FileSystem.rename(path, to: aside)
            try? FileSystem.remove(path + "-wal")
            try? FileSystem.remove(path + "-shm")
            // The renames survive a power cut only once the directory is synced.
            try syncDirectory(containing: path)
        } catch { throw .directory(error) }
        return aside
    }

    /// Copies into `database` (new and empty, its tables made) every row of the damaged journal at
    /// `damaged` that can be read and, for the share and the events, decoded; then drops queue
    /// entries whose event was not kept, and queues every kept event again for its receivers
    /// (`requeue`: queue entries are lost with the damage). A table is read forwards until a
    /// damaged page, then backwards from its end, so that rows on both sides of the damage are
    /// kept. `policies` are the destinations configured now (a `latest` one gets each share's
    /// newest update only).
    static func salvage(from damaged: String, into database: SQLiteConnection, policies: [String: QueuePolicy] = [:]) -> Kept {
        var kept = Kept()
        let tables: [String]
        do {
            tables = try database.withStatement("SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                statement throws(SQLiteError) in
                var names: [String] = []
                while try statement.step() { names.append(statement.text(0)) }
                return names
            }
        } catch {
            kept.unreadable.append(("the new journal's schema", error.message))
            return kept
        }
        // Everything that reads is read first, then the damaged file is let go, then the rows are
        // written in one transaction of the new journal alone. SQLite reads a copy: it would
        // checkpoint the WAL into the file moved aside, or remove it, when it lets go of it.
        let copy = damaged + ".reading"
        defer { for name in [copy, copy + "-wal", copy + "-shm"] { try? FileSystem.remove(name) } }
        var rowsByTable: [(table: String, rows: [[SQLiteValue]])] = []
        do {
            guard copyFile(damaged, to: copy), !FileSystem.exists(damaged + "-wal") || copyFile(damaged + "-wal", to: copy + "-wal") else {
                kept.unreadable.append(("the whole file", "cannot copy it: \(SystemError("copy", target: damaged))"))
                return kept
            }
            try database.run("ATTACH DATABASE ?1 AS damaged", [.text(copy)])
            for table in tables {
                let (rows, reason) = readableRows(of: table, in: database)
                if let reason { kept.unreadable.append((table, reason)) }
                rowsByTable.append((table, rows))
            }
            try database.run("DETACH DATABASE damaged")
        } catch {
            kept.unreadable.append(("the whole file", error.message))
            _ = try? database.run("DETACH DATABASE damaged")
        }
        // Rows whose record does not decode are not kept: a share or an event that cannot be read
        // back would stop the next start again.
        func recordDecodes(_ row: [SQLiteValue], _ decode: ([UInt8]) -> Bool) -> Bool {
            guard row.count > 1, case .blob(let bytes) = row[1] else { return false }
            return decode(bytes)
        }
        let keeps: [String: ([SQLiteValue]) -> Bool] = [
            "share": { recordDecodes($0) { BinaryRecord.decodeShare($0) != nil } },
            "events": { recordDecodes($0) { BinaryRecord.decodeEvent($0) != nil } },
        ]
        do {
            try database.transaction { () throws(SQLiteError) in
                for (table, rows) in rowsByTable {
                    guard let width = rows.first?.count else { continue }
                    let placeholders = (1...width).map { "?\($0)" }.joined(separator: ", ")
                    for row in rows where row.count == width && keeps[table]?(row) ?? true {
                        try database.run("INSERT OR IGNORE INTO main.\"\(table)\" VALUES (\(placeholders))", row)
                    }
                }
                try database.run("DELETE FROM main.queue WHERE position NOT IN (SELECT position FROM main.events)")
                kept.queueEntries = try count("queue", in: database)
                (kept.requeued, kept.requeuedReceivers) = try requeue(in: database, policies: policies)
            }
            kept.share = try count("share", in: database) > 0
            kept.events = try count("events", in: database)
        } catch {
            kept = Kept()
            kept.unreadable.append(("the copy", error.message))
        }
        return kept
    }

    /// Queues every kept event again for each receiver the damaged journal knew (issue 29: "kept
    /// 192 event(s) and 0 queue entries", and 240 of 267 committed events were never delivered):
    /// those at or after the receiver's `done-before` position (as recorded at the last collection
    /// of acknowledged events: 0 when none was), of the shares it was a receiver of (`receivers
    /// SHARE`; every receiver when a share's were not recorded). Entries kept are kept; a `latest`
    /// receiver gets each share's newest update, final updates and `ended`. Returns the entries
    /// added and for how many receivers.
    static func requeue(in database: SQLiteConnection, policies: [String: QueuePolicy]) throws(SQLiteError) -> (events: Int, receivers: Int) {
        var receivers = Set<String>()
        var doneBefore: [String: Int64] = [:]
        try database.withStatement("""
            SELECT name, NULL FROM main.destinations UNION SELECT DISTINCT destination, NULL FROM main.queue
            UNION SELECT substr(key, 13), CAST(value AS INTEGER) FROM main.meta WHERE key GLOB 'done-before *'
            """) { statement throws(SQLiteError) in
            while try statement.step() {
                let name = statement.text(0)
                receivers.insert(name)
                if !statement.isNull(1) { doneBefore[name] = statement.int64(1) }
            }
        }
        var events: [(position: Int64, event: ShareEvent)] = []
        try database.withStatement("SELECT position, record FROM main.events ORDER BY position") { statement throws(SQLiteError) in
            while try statement.step() {
                if let event = BinaryRecord.decodeEvent(statement.blob(1)) { events.append((statement.int64(0), event)) }
            }
        }
        var shareReceivers: [ShareID: Set<String>?] = [:]
        var newestUpdate: [ShareID: Int64] = [:]
        for (position, event) in events {
            if shareReceivers[event.shareID] == nil {
                shareReceivers[event.shareID] = .some(try Journal.loadShareReceivers(event.shareID, database))
            }
            if EventKind(event) == .update { newestUpdate[event.shareID] = position }
        }
        var added = 0
        var requeuedFor = Set<String>()
        for name in receivers.sorted() {
            let latest = policies[name]?.backlog == .latest
            for (position, event) in events where position >= doneBefore[name, default: 0] {
                guard shareReceivers[event.shareID]??.contains(name) ?? true else { continue }
                let row = Journal.QueueRow(position: position, event: event)
                if latest, row.kind == .update, newestUpdate[event.shareID] != position { continue }
                if try database.run("""
                    INSERT OR IGNORE INTO main.queue (destination, position, share_id, kind, size) VALUES (?1, ?2, ?3, ?4, ?5)
                    """, [.text(name), .integer(position), .text(row.shareID.rawValue), .integer(row.kind.rawValue),
                          .integer(Int64(row.jsonBytes))]) > 0 {
                    added += 1
                    requeuedFor.insert(name)
                }
            }
        }
        return (added, requeuedFor.count)
    }

    /// Copies the file at `source` to `destination` (made 0600); false when it cannot.
    private static func copyFile(_ source: String, to destination: String) -> Bool {
        guard let input = try? FileDescriptor.openForReading(source) else { return false }
        defer { input.close() }
        guard let output = try? FileDescriptor.openFile(destination, FileOpening(.writeOnly, creatingWith: 0o600, truncating: true)) else {
            return false
        }
        defer { output.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        do {
            while true {
                let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
                if count == 0 { return true }
                try buffer.withUnsafeBytes { try output.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            }
        } catch {
            return false
        }
    }

    private static func count(_ table: String, in database: SQLiteConnection) throws(SQLiteError) -> Int {
        try database.withStatement("SELECT count(*) FROM main.\"\(table)\"") { statement throws(SQLiteError) in
            try statement.step() ? Int(statement.int64(0)) : 0
        }
    }

    /// The rows of `table` in the damaged journal that can be read, and the complaint that stopped
    /// a scan, if one did.
    private static func readableRows(of table: String, in database: SQLiteConnection) -> ([[SQLiteValue]], String?) {
        var rows: [[SQLiteValue]] = []
        func scan(_ sql: String) -> String? {
            do {
                try database.withStatement(sql) { statement throws(SQLiteError) in
                    while try statement.step() {
                        rows.append((0..<statement.columnCount).map { statement.value($0) })
                    }
                }
                return nil
            } catch {
                return error.message
            }
        }
        guard let reason = scan("SELECT * FROM damaged.\"\(table)\"") else { return (rows, nil) }
        // Backwards from the end, for the rows after the damage (tables without a rowid are read forwards only).
        _ = scan("SELECT * FROM damaged.\"\(table)\" ORDER BY rowid DESC")
        return (rows, reason)
    }
}
