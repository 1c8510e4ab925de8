import LiveLocation

/// The `track` table of the journal: every fix each share accepted (true positions, throttled fixes
/// included), written in the same transaction as the share's batch, kept for a retention time.
///
/// Small rows on small pages, so that a commit adds about one page to the WAL (bench/durability.sh):
/// the table is clustered by (share, position) (`WITHOUT ROWID`, one leaf of the active share's range
/// per commit, no index to update), a share is a small integer (`track_shares` maps it to its id),
/// and every value is an integer at the precision the track formats print — degrees × 10⁹; metres,
/// metres per second and degrees of course × 1000; HDOP × 100 — which SQLite stores in 1 to 6 bytes.
/// `position` numbers the fixes of the whole journal in the order accepted.
enum TrackStore {
    static func create(_ database: SQLiteConnection) throws(SQLiteError) {
        try database.execute("CREATE TABLE IF NOT EXISTS track_shares (key INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)")
        try database.execute("""
            CREATE TABLE IF NOT EXISTS track (
                share INTEGER NOT NULL, position INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
                time INTEGER NOT NULL, latitude INTEGER NOT NULL, longitude INTEGER NOT NULL, mode INTEGER NOT NULL,
                altitude_msl INTEGER, altitude_hae INTEGER, speed INTEGER, course INTEGER, accuracy INTEGER,
                hdop INTEGER, satellites INTEGER, PRIMARY KEY (share, position)) WITHOUT ROWID
            """)
    }

    /// The newest fix's position and share (a scan, done once when the journal opens).
    static func newest(in database: SQLiteConnection) throws(SQLiteError) -> (position: Int64, share: ShareID)? {
        try database.withStatement("""
            SELECT t.position, s.id FROM track t JOIN track_shares s ON s.key = t.share ORDER BY t.position DESC LIMIT 1
            """) { statement throws(SQLiteError) in
            try statement.step() ? (statement.int64(0), ShareID(rawValue: statement.text(1))) : nil
        }
    }

    /// Appends `fixes`, recorded at `now` (wall clock), numbered from `position` + 1; returns the last
    /// number used. `keys` caches the shares' keys (a new share gets one in the same transaction).
    static func insert(_ fixes: [TrackedFix], after position: Int64, recordedAt now: Timestamp,
                       keys: inout [ShareID: Int64], into database: SQLiteConnection) throws(SQLiteError) -> Int64 {
        var position = position
        let recordedAt = now.millisecondsSince1970 / 1000
        for tracked in fixes {
            let fix = tracked.fix
            let share = try key(of: tracked.shareID, keys: &keys, in: database)
            position += 1
            try database.run("""
                INSERT INTO track (share, position, recorded_at, time, latitude, longitude, mode, altitude_msl,
                                   altitude_hae, speed, course, accuracy, hdop, satellites)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                """, [.integer(share), .integer(position), .integer(recordedAt), .integer(fix.time.millisecondsSince1970),
                      scaled(fix.latitude, degreesScale), scaled(fix.longitude, degreesScale),
                      .integer(Int64(fix.mode.rawValue)),
                      scaled(fix.altitudeMSLMeters, unitScale), scaled(fix.altitudeHAEMeters, unitScale),
                      scaled(fix.speedMetersPerSecond, unitScale), scaled(fix.courseDegreesTrue, unitScale),
                      scaled(fix.horizontalAccuracyMeters, unitScale), scaled(fix.hdop, hdopScale),
                      fix.satellitesUsed.map { .integer(Int64($0)) } ?? .null])
        }
        return position
    }

    /// Removes the tracks of the shares whose last fix was recorded before `cutoff` (a share's
    /// track is kept whole); nil removes every track. Returns the fixes removed; `keys` is emptied
    /// when any were.
    @discardableResult
    static func expire(before cutoff: Timestamp?, keys: inout [ShareID: Int64],
                       in database: SQLiteConnection) throws(SQLiteError) -> Int {
        let removed: Int
        if let cutoff {
            removed = try database.run("""
                DELETE FROM track WHERE share IN (
                    SELECT share FROM track GROUP BY share HAVING max(recorded_at) < ?1)
                """, [.integer(cutoff.millisecondsSince1970 / 1000)])
        } else {
            removed = try database.run("DELETE FROM track")
        }
        if removed > 0 || cutoff == nil {
            try database.run("DELETE FROM track_shares WHERE key NOT IN (SELECT DISTINCT share FROM track)")
            keys.removeAll()
        }
        return removed
    }

    /// Up to `limit` fixes of `share` after `position`, in order; nil when the journal has no fix
    /// of that share.
    static func page(_ share: ShareID, after position: Int64, limit: Int,
                     in database: SQLiteConnection) throws(SQLiteError) -> TrackPage? {
        let key = try database.withStatement("SELECT key FROM track_shares WHERE id = ?1", [.text(share.rawValue)]) {
            statement throws(SQLiteError) in try statement.step() ? statement.int64(0) : nil
        }
        guard let key else { return nil }
        var page = TrackPage(shareID: share, fixes: [], next: nil)
        var any = false
        try database.withStatement("""
            SELECT position, time, latitude, longitude, mode, altitude_msl, altitude_hae, speed, course, accuracy,
                   hdop, satellites
            FROM track WHERE share = ?1 AND position > ?2 ORDER BY position LIMIT ?3
            """, [.integer(key), .integer(position), .integer(Int64(limit) + 1)]) { statement throws(SQLiteError) in
            func value(_ column: Int32, _ scale: Double) -> Double? {
                statement.isNull(column) ? nil : Double(statement.int64(column)) / scale
            }
            var last: Int64 = position
            while try statement.step() {
                any = true
                guard page.fixes.count < limit else {
                    page.next = last
                    break
                }
                last = statement.int64(0)
                page.fixes.append(Fix(
                    time: Timestamp(millisecondsSince1970: statement.int64(1)),
                    latitude: value(2, degreesScale) ?? 0, longitude: value(3, degreesScale) ?? 0,
                    mode: Fix.Mode(rawValue: Int(statement.int64(4))) ?? .twoDimensional,
                    altitudeMSLMeters: value(5, unitScale), altitudeHAEMeters: value(6, unitScale),
                    speedMetersPerSecond: value(7, unitScale), courseDegreesTrue: value(8, unitScale),
                    horizontalAccuracyMeters: value(9, unitScale), hdop: value(10, hdopScale),
                    satellitesUsed: statement.isNull(11) ? nil : Int(statement.int64(11))))
            }
        }
        // A share whose fixes all expired keeps no key; one with fixes but none after `position`
        // gets an empty last page.
        return any || position > 0 ? page : nil
    }

    private static let degreesScale = 1e9
    private static let unitScale = 1e3
    private static let hdopScale = 1e2

    private static func scaled(_ value: Double?, _ scale: Double) -> SQLiteValue {
        guard let value, value.isFinite, abs(value * scale) < 9e18 else { return .null }
        return .integer(Int64((value * scale).rounded()))
    }

    private static func key(of share: ShareID, keys: inout [ShareID: Int64],
                            in database: SQLiteConnection) throws(SQLiteError) -> Int64 {
        if let key = keys[share] { return key }
        try database.run("INSERT OR IGNORE INTO track_shares (id) VALUES (?1)", [.text(share.rawValue)])
        let key = try database.withStatement("SELECT key FROM track_shares WHERE id = ?1", [.text(share.rawValue)]) {
            statement throws(SQLiteError) in try statement.step() ? statement.int64(0) : 0
        }
        keys[share] = key
        return key
    }
}

/// Part of one share's track, in order.
package struct TrackPage: Sendable, Equatable {
    package var shareID: ShareID
    package var fixes: [Fix]
    /// Where the next page starts (pass it as `after`); nil when this page holds the last fix.
    package var next: Int64?
}
