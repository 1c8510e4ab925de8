import LiveLocation

/// The `share_ids` table of the journal: the id of every share the journal ever held, kept for
/// good. An event's id is `evt_<shareId>_<seq>` and must name one content forever (receivers
/// deduplicate on it), so a share id, once used, never starts another share: not after the share
/// ended, not after a restart, not after the track retention removed its fixes, not after a
/// salvage (which copies this table like every other).
///
/// A share's id is written in the same transaction as the share's first batch (`Journal.commit`).
/// A journal made by an earlier version, without the table, gets the ids it still names (queued
/// events, kept tracks, the open share) when it is opened; the ids of shares fully delivered and
/// past the track retention before the upgrade are not known to it.
enum ShareIDStore {
    /// The table; a rowid table, so that a salvage can also read it backwards from a damaged page.
    static func create(_ database: SQLiteConnection) throws(SQLiteError) {
        try database.execute("CREATE TABLE IF NOT EXISTS share_ids (id TEXT PRIMARY KEY)")
    }

    /// Records every share id the journal names elsewhere (queues, tracks, the open share, the
    /// receivers recorded for it), in one transaction: a migration of an earlier version's journal,
    /// and a repair after a salvage that lost rows of `share_ids` but kept some of the others.
    static func recordNamedElsewhere(in database: SQLiteConnection, openShare: ShareID?) throws(SQLiteError) {
        try database.transaction { () throws(SQLiteError) in
            try database.execute("INSERT OR IGNORE INTO share_ids (id) SELECT DISTINCT share_id FROM queue")
            try database.execute("INSERT OR IGNORE INTO share_ids (id) SELECT id FROM track_shares")
            try database.execute("""
                INSERT OR IGNORE INTO share_ids (id)
                SELECT substr(value, 1, instr(value || char(10), char(10)) - 1) FROM meta WHERE key = 'share-receivers'
                """)
            if let openShare { try record(openShare, in: database) }
        }
    }

    /// Records `id` as used (nothing when it already is).
    static func record(_ id: ShareID, in database: SQLiteConnection) throws(SQLiteError) {
        try database.run("INSERT OR IGNORE INTO share_ids (id) VALUES (?1)", [.text(id.rawValue)])
    }

    /// Whether a share with `id` was ever committed.
    static func contains(_ id: ShareID, in database: SQLiteConnection) throws(SQLiteError) -> Bool {
        try database.withStatement("SELECT 1 FROM share_ids WHERE id = ?1", [.text(id.rawValue)]) { statement throws(SQLiteError) in
            try statement.step()
        }
    }
}

extension Journal {
    /// Why a start with `id` is refused when `takeShareID` says it was used, in one line.
    package nonisolated static func refusal(reusing id: ShareID) -> String {
        "share id \(id) was used before (its events are evt_\(id)_<seq>, and an event id names one content forever); "
            + "choose an id not used before"
    }

    /// Takes `id` for a new share if no share ever had it: not one the journal holds or held (the
    /// `share_ids` table), nor one started in this run and not committed yet. Returns false when
    /// it was used; true when it is now taken (in memory until the share's first batch commits it).
    /// Actor-isolated: of two starts with the same new id, one gets it.
    /// - Throws: `JournalError` when the journal is closed or cannot be read.
    package func takeShareID(_ id: ShareID) throws(JournalError) -> Bool {
        guard !closed else { throw .closed }
        if let failure { throw failure }
        guard share?.id != id, !takenShareIDs.contains(id) else { return false }
        do {
            if try ShareIDStore.contains(id, in: database) { return false }
        } catch {
            throw .sqlite(error)
        }
        takenShareIDs.insert(id)
        return true
    }
}
