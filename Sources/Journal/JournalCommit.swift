import Delivery
import LiveLocation
import SystemIO

/// Committing a batch: one SQLite transaction, then the journal's memory follows what it wrote.
extension Journal {
    /// Commits `batch`: its events (one queue entry per destination, backlog policy and bounds
    /// applied), the share's state after it, and any acknowledgements waiting, in one synced
    /// transaction: on return it is on disk, and so is every commit before it. Returns what it
    /// queued (see `commit(_:)` for several batches).
    /// - Throws: `JournalError` (disk full, I/O error); nothing of the batch is then committed and
    ///   the same batch may be committed again later.
    @discardableResult
    package func commit(_ batch: ShareBatch) throws(JournalError) -> [String: [QueuedEvent]] {
        try commit([batch])
    }

    /// Commits `batches`, in order, in one synced transaction: the same as committing them one after
    /// the other, with one sync (and each page they touch written once) for all of them. All of
    /// them, or none of them.
    ///
    /// Returns, by receiver (`Destination.identity`), the entries the commit added to its queue and
    /// left there, in order, each as `pending` would read it back (its JSON encoded once, shared by
    /// every receiver): the hand-on to the runners, so that a runner that is caught up does not
    /// read back what was just written (a `latest` queue's updates that a newer one replaced in the
    /// same commit, and updates dropped over a queue's bounds, are not in it).
    /// - Throws: `JournalError`; nothing of them is then committed.
    @discardableResult
    package func commit(_ batches: [ShareBatch]) throws(JournalError) -> [String: [QueuedEvent]] {
        guard !closed else { throw .closed }
        guard !batches.isEmpty else { return [:] }
        try checkFile(before: batches)
        absorbAcknowledgements()
        let absorbedUpTo = inbox.withLock { $0.oldest }
        var written = Written(share: share, receivers: openShareReceivers, trackPosition: trackPosition)
        let trackShareKeysBefore = trackShareKeys
        do {
            // BEGIN … COMMIT: all of it is on disk, or none of it.
            try database.transaction { () throws(SQLiteError) in
                for batch in batches {
                    // The events go to the receivers of their share as recorded before their batch.
                    let receivers = written.receivers
                    try writeShareState(batch.share, into: &written)
                    for event in batch.events { try writeEvent(event, receivers: receivers, into: &written) }
                    try writeTrack(batch.fixes, into: &written)
                }
                try writeAcknowledgements()
            }
        } catch {
            trackShareKeys = trackShareKeysBefore  // keys given in the transaction were rolled back with it
            if error.isDamage { failure = .damaged(error.message) }
            throw failure ?? .sqlite(error)
        }
        // Written to a file no longer at the path: not durable, so not done.
        try checkFileIsStillThere()
        // Committed: the journal's memory follows the disk.
        share = written.share
        openShareReceivers = written.receivers
        countLeftoverEvents(written.leftoverEvents)
        if let tracksExpired = written.tracksExpiredAt { tracksExpiredAt = tracksExpired }
        if written.trackPosition != trackPosition {
            trackPosition = written.trackPosition
            lastTrackedShare = written.lastTrackedShare
        }
        countQueueChanges(written.queues)
        markAcknowledgementsFlushed(absorbedUpTo: absorbedUpTo)
        // Before anything of it is handed on: what leaves the process, outside the WAL.
        if let newest = written.newestEvent {
            highWater.position = newest.position
            (highWater.newestShare, highWater.newestSeq) = (newest.share, newest.seq)
            highWater.share = share
            writeHighWaterMark()
        }
        return written.queued
    }

    /// What a commit's transaction wrote, for the journal's memory once it is committed.
    struct Written {
        /// The share open after the batches so far.
        var share: ShareSnapshot?
        /// The receivers of the share open after the batches so far.
        var receivers: ShareReceivers?
        var queues: [String: QueueChange] = [:]
        /// Events queued for receivers not configured now (a share's end), by receiver.
        var leftoverEvents: [String: Int] = [:]
        /// The newest track fix's number, and its share.
        var trackPosition: Int64
        var lastTrackedShare: ShareID?
        /// When old tracks were last removed, when the transaction did.
        var tracksExpiredAt: Timestamp?
        /// The newest event written: its position, share and seq (for the high-water mark).
        var newestEvent: (position: Int64, share: ShareID, seq: Int)?
        /// The entries queued and still there, by receiver, as the runners get them (`commit`'s result).
        var queued: [String: [QueuedEvent]] = [:]
    }

    /// A queue's counts through a batch.
    struct QueueChange {
        /// Before the batch: acknowledgements flushed in the same transaction change the queue's
        /// counts too, so the batch's effect is applied as a difference.
        let pendingBefore: Int
        let bytesBefore: Int
        var pending: Int
        var bytes: Int
        var dropped = 0
        /// Dropped because the queue was over its bounds (`QueuePolicy.maxEvents`, `maxBytes`).
        var overBound = 0

        init(_ queue: Queue) {
            (pendingBefore, bytesBefore) = (queue.pending, queue.pendingBytes)
            (pending, bytes) = (queue.pending, queue.pendingBytes)
        }
    }

    /// An event's entry in a queue.
    struct QueueRow {
        /// The event's position in the events table.
        var position: Int64
        var shareID: ShareID
        var kind: EventKind
        /// The JSON a destination sends (the line without its newline), as the queue bounds count it.
        var json: [UInt8]
        var jsonBytes: Int { json.count }

        init(position: Int64, event: ShareEvent) {
            self.position = position
            shareID = event.shareID
            kind = EventKind(event)
            json = event.jsonLineBytes
            json.removeLast()
        }
    }

    /// The share's state after the batch (its row removed when no share is open), and, with the
    /// first batch of a share, the receivers it is started for: those configured now (kept while
    /// the share is open or has queued events: a salvage queues a share's events again for its
    /// receivers only).
    private func writeShareState(_ snapshot: ShareSnapshot?, into written: inout Written) throws(SQLiteError) {
        if let snapshot {
            // A share's first batch: its id is used for good (see ShareIDStore).
            if written.share?.id != snapshot.id { try ShareIDStore.record(snapshot.id, in: database) }
            if written.receivers?.share != snapshot.id {
                written.receivers = (snapshot.id, Set(queues.keys))
                try database.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                                 [.text(Self.receiversKey(snapshot.id)), .text(queues.keys.sorted().joined(separator: "\n"))])
            }
            try database.run("INSERT OR REPLACE INTO share (id, record) VALUES (1, ?1)", [.blob(BinaryRecord.encode(snapshot))])
        } else if written.share != nil {
            try database.run("DELETE FROM share")
        }
        written.share = snapshot
    }

    /// An event, and its entry in the queue of each receiver of its share as recorded before the
    /// batch (`recorded`; a share not recorded there goes to every destination configured now). A
    /// share's end also goes to its receivers not configured now, as leftovers.
    private func writeEvent(_ event: ShareEvent, receivers recorded: ShareReceivers?, into written: inout Written) throws(SQLiteError) {
        try database.run("INSERT INTO events (record) VALUES (?1)", [.blob(BinaryRecord.encode(event))])
        let row = QueueRow(position: database.lastInsertRowID, event: event)
        // Also with its end (after the event's position is read): a share that ended within its
        // first batch was never the open one.
        if case .ended = event { try ShareIDStore.record(event.shareID, in: database) }
        written.newestEvent = (row.position, event.shareID, event.seq)
        let receivers = recorded?.share == event.shareID ? recorded?.identities : nil
        if let receivers, event.isFinal {
            for name in try queueEndForLeftoverReceivers(row, receivers: receivers) { written.leftoverEvents[name, default: 0] += 1 }
        }
        for (name, queue) in queues where receivers?.contains(name) ?? true {
            var change = written.queues[name] ?? QueueChange(queue)
            try enqueue(row, in: name, policy: queue.policy, change: &change, queued: &written.queued[name, default: []])
            written.queued[name]!.append(QueuedEvent(position: row.position, event: event, json: row.json, destinationState: queue.state))
            written.queues[name] = change
        }
    }

    /// `row` in `name`'s queue. A `latest` queue first drops the updates of the share it still holds;
    /// then, while the queue is over its bounds, its oldest update is dropped (final updates and
    /// `ended` never are). An entry dropped that this commit queued leaves `queued` too.
    private func enqueue(_ row: QueueRow, in name: String, policy: QueuePolicy, change: inout QueueChange,
                         queued: inout [QueuedEvent]) throws(SQLiteError) {
        if policy.backlog == .latest, row.kind != .ended {
            try database.withStatement("""
                DELETE FROM queue WHERE destination = ?1 AND share_id = ?2 AND kind = 0 RETURNING size, position
                """, [.text(name), .text(row.shareID.rawValue)]) { statement throws(SQLiteError) in
                while try statement.step() {
                    change.pending -= 1
                    change.bytes -= Int(statement.int64(0))
                    change.dropped += 1
                    let position = statement.int64(1)
                    queued.removeAll { $0.position == position }
                }
            }
        }
        try insert(row, into: name)
        change.pending += 1
        change.bytes += row.jsonBytes
        while change.pending > policy.maxEvents || change.bytes > policy.maxBytes {
            let dropped = try database.withStatement("""
                DELETE FROM queue WHERE destination = ?1 AND position = (
                    SELECT position FROM queue WHERE destination = ?1 AND kind = 0 ORDER BY position LIMIT 1)
                RETURNING size, position
                """, [.text(name)]) { statement throws(SQLiteError) in
                try statement.step() ? (size: Int(statement.int64(0)), position: statement.int64(1)) : nil
            }
            guard let (size, position) = dropped else { break }
            queued.removeAll { $0.position == position }
            change.pending -= 1
            change.bytes -= size
            change.dropped += 1
            change.overBound += 1
        }
    }

    /// The queue table's row for `row` in `destination`'s queue.
    func insert(_ row: QueueRow, into destination: String) throws(SQLiteError) {
        try database.run("INSERT INTO queue (destination, position, share_id, kind, size) VALUES (?1, ?2, ?3, ?4, ?5)",
                         [.text(destination), .integer(row.position), .text(row.shareID.rawValue), .integer(row.kind.rawValue),
                          .integer(Int64(row.jsonBytes))])
    }

    /// The batch's accepted fixes as the share's track (when tracks are kept), and, every
    /// `trackExpiryInterval`, the tracks past their retention removed.
    private func writeTrack(_ fixes: [TrackedFix], into written: inout Written) throws(SQLiteError) {
        guard let retention = trackRetention, let last = fixes.last else { return }
        let recordedAt = now()
        written.trackPosition = try TrackStore.insert(fixes, after: written.trackPosition, recordedAt: recordedAt,
                                                      keys: &trackShareKeys, into: database)
        written.lastTrackedShare = last.shareID
        if recordedAt - (written.tracksExpiredAt ?? tracksExpiredAt) >= Self.trackExpiryInterval {
            try TrackStore.expire(before: recordedAt - retention, keys: &trackShareKeys, in: database)
            written.tracksExpiredAt = recordedAt
        }
    }

    /// After a commit: each queue's counts follow what the batch did to it. A `latest` queue drops
    /// stale updates as a matter of course; a bound reached is news, said at once and then as one
    /// summary a window (it can come with every commit).
    private func countQueueChanges(_ changes: [String: QueueChange]) {
        for (name, change) in changes {
            queues[name]!.pending += change.pending - change.pendingBefore
            queues[name]!.pendingBytes += change.bytes - change.bytesBefore
            queues[name]!.dropped += change.dropped
            guard change.overBound > 0 else { continue }
            queues[name]!.droppedOverBound += change.overBound
            let total = queues[name]!.droppedOverBound
            let policy = queues[name]!.policy
            log.limited(.warning, key: "\(name) over bound",
                        "\(name): queue over its bound (\(policy.maxEvents) events, \(policy.maxBytes) bytes): "
                        + "\(total) oldest update(s) dropped so far; final updates and ended are never dropped") { _, window in
                "\(name): queue still over its bound in the last \(window.shortText): \(total.thousandsSeparated) oldest update(s) dropped so far"
            }
        }
    }

    /// Before a commit: the file must still be the one at the path, and (with a batch that starts
    /// or ends a share, and every `verifyInterval`) every page must read back sound from the file.
    /// A failure is kept: every later commit fails with it.
    private func checkFile(before batches: [ShareBatch]) throws(JournalError) {
        if let failure { throw failure }
        try checkFileIsStillThere()
        var shareBefore = share
        let promise = batches.contains { batch in
            defer { shareBefore = batch.share }
            return batch.share?.id != shareBefore?.id || batch.events.contains { if case .ended = $0 { true } else { false } }
        }
        guard promise || ContinuousClock.now - verifiedAt >= Self.verifyInterval else { return }
        try verifyPages()
        if let failure { throw failure }
    }

    /// Fails for good once the file at the journal's path is no longer the one opened.
    private func checkFileIsStillThere() throws(JournalError) {
        if let gone = file.whatBecameOfIt() {
            failure = .fileGone(gone)
            throw failure!
        }
    }

    /// Reads every page back from the file; damage sets `failure`. Other errors (I/O) are thrown.
    func verifyPages() throws(JournalError) {
        verifiedAt = .now
        do {
            if let complaint = try database.damage() { failure = .damaged(complaint) }
        } catch {
            if error.isDamage { failure = .damaged(error.message) } else { throw .sqlite(error) }
        }
    }
}
