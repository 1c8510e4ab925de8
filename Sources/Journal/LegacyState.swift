import JSONCoding
import LiveLocation
import SystemIO

/// Takes over the state an earlier version kept in two places: `share.json` (the active share) and
/// the webhook's SQLite outbox (undelivered events, with the same `webhook-id`s). Done once, in one
/// transaction with a mark in `meta`; the old files are then renamed `*.migrated`. The outbox was
/// the configured webhook's own (named by the same configuration), so its events join the queue of
/// the webhook configured now, and only when one is.
enum LegacyState {
    static func takeOver(into database: SQLiteConnection, directory: String, legacyOutbox: String?,
                         destinations: Set<String>, log: Logger) throws {
        let done = try database.withStatement("SELECT value FROM meta WHERE key = 'legacy-taken-over'") { statement throws(SQLiteError) in
            try statement.step()
        }
        guard !done else { return }
        let sharePath = directory + "/share.json"
        let outboxPath = legacyOutbox ?? directory + "/webhook-outbox.sqlite"
        let share = try readShare(sharePath)
        let webhook = destinations.first { $0 == "webhook" || $0.hasPrefix("webhook ") }
        let outboxEvents = webhook != nil ? try readOutbox(outboxPath) : nil
        try database.transaction { () throws(SQLiteError) in
            if let share {
                try database.run("INSERT OR REPLACE INTO share (id, record) VALUES (1, ?1)", [.blob(BinaryRecord.encode(share))])
            }
            for (event, json) in outboxEvents ?? [] {
                let kind = EventKind(event)
                try database.run("INSERT INTO events (record) VALUES (?1)", [.blob(BinaryRecord.encode(event))])
                try database.run("INSERT INTO queue (destination, position, share_id, kind, size) VALUES (?5, ?1, ?2, ?3, ?4)",
                                 [.integer(database.lastInsertRowID), .text(event.shareID.rawValue), .integer(kind.rawValue), .integer(Int64(json.count)), .text(webhook!)])
            }
            try database.run("INSERT INTO meta (key, value) VALUES ('legacy-taken-over', '1')")
        }
        // The takeover is committed (the mark in `meta`); the renames only tidy up, and each is made
        // durable by an fsync of its directory, so that a power cut does not bring the old name back.
        if let share {
            try? FileSystem.rename(sharePath, to: sharePath + ".migrated")
            syncDirectory(containing: sharePath, log: log)
            log.notice("journal: took over share \(share.id) (seq \(share.seq)) from \(sharePath)")
        }
        if let outboxEvents {
            for suffix in ["", "-wal", "-shm"] { try? FileSystem.rename(outboxPath + suffix, to: outboxPath + suffix + ".migrated") }
            syncDirectory(containing: outboxPath, log: log)
            log.notice("journal: took over \(outboxEvents.count) undelivered webhook event(s) from \(outboxPath)")
        }
    }

    private static func syncDirectory(containing path: String, log: Logger) {
        do { try SystemIO.syncDirectory(containing: path) } catch {
            log.warning("journal: the takeover is saved, but the renaming of the old files may not survive a power cut: \(error)")
        }
    }

    private static func readShare(_ path: String) throws -> ShareSnapshot? {
        let opened: FileDescriptor?
        do { opened = try FileDescriptor.openForReadingIfPresent(path) } catch {
            throw JournalError.migration(path: path, reason: "\(error)")
        }
        guard let descriptor = opened else { return nil }
        defer { descriptor.close() }
        let bytes = (try? descriptor.readToEnd(limit: 1 << 20, path: path)) ?? []
        do { return try JSON.decode(ShareSnapshot.self, from: bytes) } catch {
            // As the earlier version did with a corrupt file: start without a share, keep the file.
            return nil
        }
    }

    /// The outbox's events in delivery order; nil when there is no outbox.
    private static func readOutbox(_ path: String) throws -> [(ShareEvent, [UInt8])]? {
        guard FileSystem.exists(path) else { return nil }
        do {
            let outbox = try SQLiteConnection(path: path, create: false)
            defer { outbox.close() }
            return try outbox.withStatement("SELECT body FROM outbox ORDER BY position") { statement throws(SQLiteError) in
                var events: [(ShareEvent, [UInt8])] = []
                while try statement.step() {
                    let body = statement.blob(0)
                    if let event = EventLine.decode(body) { events.append((event, body)) }
                }
                return events
            }
        } catch {
            throw JournalError.migration(path: path, reason: "\(error)")
        }
    }
}
