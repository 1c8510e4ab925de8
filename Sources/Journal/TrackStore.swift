import LiveLocation

/// The `track` table of the journal: every fix each share accepted (true positions, throttled fixes
/// included), written in the same transaction as the share's batch, kept for a retention time.
///
/// The table is clustered by (share, position) (`WITHOUT ROWID`): a commit appends to one leaf page
/// of the active share's range (no separate index page to write), and a share's track is read in
/// order from one range. `position` numbers the fixes of the whole journal, in the order accepted.
enum TrackStore {
    static func create(_ database: SQLiteConnection) throws(SQLiteError) {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS track (
                share_id TEXT NOT NULL, position INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
                time INTEGER NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL, mode INTEGER NOT NULL,
                altitude_msl REAL, altitude_hae REAL, speed REAL, course REAL, accuracy REAL, hdop REAL,
                satellites INTEGER, PRIMARY KEY (share_id, position)) WITHOUT ROWID
            """)
    }

    /// The newest fix's position and share (a scan, done once when the journal opens).
    static func newest(in database: SQLiteConnection) throws(SQLiteError) -> (position: Int64, share: ShareID)? {
        try database.withStatement("SELECT position, share_id FROM track ORDER BY position DESC LIMIT 1") {
            statement throws(SQLiteError) in try statement.step() ? (statement.int64(0), ShareID(rawValue: statement.text(1))) : nil
        }
    }

    /// Appends `fixes`, recorded at `now` (wall clock, milliseconds), numbered from `position` + 1;
    /// returns the last number used.
    static func insert(_ fixes: [TrackedFix], after position: Int64, recordedAt now: Timestamp,
                       into database: SQLiteConnection) throws(SQLiteError) -> Int64 {
        func real(_ value: Double?) -> SQLiteValue { value.flatMap { $0.isFinite ? .real($0) : nil } ?? .null }
        var position = position
        for tracked in fixes {
            let fix = tracked.fix
            position += 1
            try database.run("""
                INSERT INTO track (share_id, position, recorded_at, time, latitude, longitude, mode, altitude_msl,
                                   altitude_hae, speed, course, accuracy, hdop, satellites)
                VALUES (?1, ?14, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """, [.text(tracked.shareID.rawValue), .integer(now.millisecondsSince1970),
                      .integer(fix.time.millisecondsSince1970), .real(fix.latitude), .real(fix.longitude),
                      .integer(Int64(fix.mode.rawValue)), real(fix.altitudeMSLMeters), real(fix.altitudeHAEMeters),
                      real(fix.speedMetersPerSecond), real(fix.courseDegreesTrue), real(fix.horizontalAccuracyMeters),
                      real(fix.hdop), fix.satellitesUsed.map { .integer(Int64($0)) } ?? .null, .integer(position)])
        }
        return position
    }

    /// Removes the tracks of the shares whose last fix was recorded before `cutoff` (a share's
    /// track is kept whole); nil removes every track. Returns the fixes removed.
    @discardableResult
    static func expire(before cutoff: Timestamp?, in database: SQLiteConnection) throws(SQLiteError) -> Int {
        guard let cutoff else { return try database.run("DELETE FROM track") }
        return try database.run("""
            DELETE FROM track WHERE share_id IN (
                SELECT share_id FROM track GROUP BY share_id HAVING max(recorded_at) < ?1)
            """, [.integer(cutoff.millisecondsSince1970)])
    }

    /// Up to `limit` fixes of `share` after `position`, in order; nil when the journal has no fix
    /// of that share.
    static func page(_ share: ShareID, after position: Int64, limit: Int,
                     in database: SQLiteConnection) throws(SQLiteError) -> TrackPage? {
        let id = share.rawValue
        let exists = try database.withStatement("SELECT 1 FROM track WHERE share_id = ?1 LIMIT 1", [.text(id)]) {
            statement throws(SQLiteError) in try statement.step()
        }
        guard exists else { return nil }
        var page = TrackPage(shareID: ShareID(rawValue: id), fixes: [], next: nil)
        try database.withStatement("""
            SELECT position, time, latitude, longitude, mode, altitude_msl, altitude_hae, speed, course, accuracy,
                   hdop, satellites
            FROM track WHERE share_id = ?1 AND position > ?2 ORDER BY position LIMIT ?3
            """, [.text(id), .integer(position), .integer(Int64(limit) + 1)]) { statement throws(SQLiteError) in
            func real(_ column: Int32) -> Double? { statement.isNull(column) ? nil : statement.double(column) }
            var last: Int64 = position
            while try statement.step() {
                guard page.fixes.count < limit else {
                    page.next = last
                    break
                }
                last = statement.int64(0)
                page.fixes.append(Fix(
                    time: Timestamp(millisecondsSince1970: statement.int64(1)),
                    latitude: statement.double(2), longitude: statement.double(3),
                    mode: Fix.Mode(rawValue: Int(statement.int64(4))) ?? .twoDimensional,
                    altitudeMSLMeters: real(5), altitudeHAEMeters: real(6), speedMetersPerSecond: real(7),
                    courseDegreesTrue: real(8), horizontalAccuracyMeters: real(9), hdop: real(10),
                    satellitesUsed: statement.isNull(11) ? nil : Int(statement.int64(11))))
            }
        }
        return page
    }
}

/// Part of one share's track, in order.
package struct TrackPage: Sendable, Equatable {
    package var shareID: ShareID
    package var fixes: [Fix]
    /// Where the next page starts (pass it as `after`); nil when this page holds the last fix.
    package var next: Int64?
}
