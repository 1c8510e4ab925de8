#if canImport(Glibc)
import Glibc
#endif
import Delivery
import JSONCoding
import LiveLocation
import Locking
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
    /// The file as opened: to notice it removed or replaced (see `JournalFile`).
    private let file: JournalFile
    /// Set once the file is found gone or damaged: every later commit fails with it.
    private var failure: JournalError?
    /// When the file's pages were last read back and checked (`SQLiteConnection.damage`).
    private var verifiedAt = ContinuousClock.now
    /// How often the pages are read back from the file and checked, besides with every batch that
    /// starts or ends a share (what `start` and `stop` promise).
    package static let verifyInterval: Duration = .seconds(60)
    private let log: Logger
    /// `journal.lock`, locked (flock) while the journal is open: one process per state directory.
    private let lock: FileDescriptor
    private var queues: [String: Queue]
    private var share: ShareSnapshot?
    /// The receivers (identities) of the open share, as configured when it started: its events go
    /// to those of them configured now, and its end (final update, `ended`) to the others too, as
    /// leftovers. A share started by an earlier run never reaches a receiver added since.
    private var openShareReceivers: (share: ShareID, identities: Set<String>)?
    /// Acknowledgements recorded without waiting for the journal's thread (see `acknowledge`).
    private let inbox = Locked(AckInbox())
    /// How long a share's track is kept after its last fix; nil keeps none (`track.retention = off`).
    package nonisolated let trackRetention: Duration?
    /// The wall clock the track's retention is measured on.
    private let now: @Sendable () -> Timestamp
    private var tracksExpiredAt: Timestamp
    /// The newest track fix's number and share.
    private var trackPosition: Int64 = 0
    private var lastTrackedShare: ShareID?
    /// The shares' keys in the track table.
    private var trackShareKeys: [ShareID: Int64] = [:]
    /// How often old tracks are looked for, besides at open.
    static let trackExpiryInterval: Duration = .seconds(3600)

    private struct AckInbox {
        var acknowledgements: [Acknowledgement] = []
        /// When the oldest acknowledgement not yet committed was made; nil when none waits.
        var oldest: ContinuousClock.Instant?
        var timerArmed = false
    }

    private struct Acknowledgement {
        var destination: String
        var position: Int64
        var dropped: Bool
        var state: [UInt8]?
    }
    private var closed = false
    private var closing = false
    /// Queue entries removed since the events table was last collected.
    private var collectable = 0

    /// How long an acknowledgement may wait in memory for the next commit. At 1 fix/s a batch comes
    /// every second and carries the acknowledgements with it; this only bounds what an idle journal
    /// re-sends after a crash.
    package static let ackFlushDelay: Duration = .seconds(5)

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The journal's thread as a task executor: a task that prefers it (the daemon's source pump and
    /// dispatcher) runs where the commits run, so that a fix on its way to the disk wakes one thread,
    /// not three (bench/daemon-footprint.sh counts the wake-ups).
    package nonisolated var taskExecutor: any TaskExecutor { executor }

    /// A destination's queue as the journal keeps it in memory.
    private struct Queue {
        var policy: QueuePolicy
        var pending = 0
        var pendingBytes = 0
        var acknowledged = 0
        var dropped = 0
        var droppedOverBound = 0
        var state: [UInt8]?
        /// Positions acknowledged or dropped but not yet committed.
        var unflushed: [Int64] = []
        var stateUnflushed = false
    }

    /// Opens (or creates) the journal of `directory` for `destinations` (identity → queue policy:
    /// each queue belongs to one receiver, `Destination.identity`).
    ///
    /// The queues of destinations not configured now are leftovers: kept, discarded or redirected
    /// as `leftovers` says (see `LeftoverPolicy`); those kept are in `leftoverQueues`. The first
    /// time, an earlier version's `share.json` and webhook outbox (`legacyOutbox`) are taken over
    /// and then removed (renamed `.migrated`). Each batch's accepted fixes are kept as the share's
    /// track for `trackRetention` after the share's last fix (nil: none are kept, and any kept
    /// before are removed). `sqliteVFS` names the SQLite VFS to open the database with: nil (the
    /// default, unix) everywhere but in the power-cut test.
    /// - Throws: `JournalError` when the directory or the database cannot be opened or written.
    package init(directory: String, destinations: [String: QueuePolicy], leftovers: LeftoverPolicy = .keep,
                 legacyOutbox: String? = nil, trackRetention: Duration? = nil, now: @escaping @Sendable () -> Timestamp = { WallClock().now },
                 sqliteVFS: String? = nil, log: Logger) throws(JournalError) {
        self.trackRetention = trackRetention
        self.now = now
        let openedAt = now()
        tracksExpiredAt = openedAt
        // A directory or file created here is made durable at once (an fsync of the directory that
        // holds it): a power cut must not take the journal's file away under a commit that returned.
        if mkdir(directory, 0o700) == 0 {
            do { try syncDirectory(containing: directory) } catch { throw .directory(error) }
        } else if errno != EEXIST {
            throw .directory(SystemError("mkdir", target: directory))
        }
        let path = directory + "/journal.sqlite"
        self.path = path
        lock = try Self.lockDirectory(directory)
        self.log = log
        do { executor = try ThreadExecutor(name: "livelocd-journal") } catch {
            lock.close()
            throw .directory(error)
        }
        // A damaged journal is moved aside and what can be read from it is kept; it never stops
        // every later start.
        let loaded: Loaded
        let keptWAL = JournalSalvage.keepWAL(of: path)
        defer { if let keptWAL { unlink(keptWAL) } }
        do {
            do {
                loaded = try Self.openAndLoad(path: path, directory: directory, destinations: destinations, leftovers: leftovers,
                                              legacyOutbox: legacyOutbox, trackRetention: trackRetention, openedAt: openedAt,
                                              salvaging: nil, sqliteVFS: sqliteVFS, log: log)
            } catch let error as SQLiteError where error.isDamage {
                let aside = try JournalSalvage.moveAside(path, at: openedAt, keptWAL: keptWAL)
                log.error("journal: \(path) is damaged (\(error.message)): moved aside to \(aside) with its WAL; "
                    + "starting a new journal with what can be read from it")
                loaded = try Self.openAndLoad(path: path, directory: directory, destinations: destinations, leftovers: leftovers,
                                              legacyOutbox: legacyOutbox, trackRetention: trackRetention, openedAt: openedAt,
                                              salvaging: aside, sqliteVFS: sqliteVFS, log: log)
            }
        } catch let error as SQLiteError {
            executor.shutdown()
            lock.close()  // a failed open leaves the directory free for the next attempt
            throw .sqlite(error)
        } catch {
            executor.shutdown()
            lock.close()  // a failed open leaves the directory free for the next attempt
            throw error as! JournalError
        }
        (database, file, share, queues, leftoverQueues) = (loaded.database, loaded.file, loaded.share, loaded.queues, loaded.leftoverQueues)
        openShareReceivers = loaded.openShareReceivers
        if let newest = loaded.newestTrackFix {
            trackPosition = newest.position
            lastTrackedShare = newest.share
        }
    }

    /// What `openAndLoad` opened and read.
    private struct Loaded {
        var database: SQLiteConnection
        var file: JournalFile
        var share: ShareSnapshot?
        var queues: [String: Queue]
        var leftoverQueues: [LeftoverQueue]
        var openShareReceivers: (share: ShareID, identities: Set<String>)?
        var newestTrackFix: (position: Int64, share: ShareID)?
    }

    /// Opens the journal file (made 0600 before SQLite opens it; SQLite gives its -wal and -shm the
    /// same mode), checks every page, takes over an earlier version's files and reads the share and
    /// the queues. With `salvaging` (a damaged journal moved aside), the new file is filled with what
    /// can be read from it first.
    /// - Throws: `SQLiteError` (`isDamage` when the file is damaged) or `JournalError`.
    private static func openAndLoad(path: String, directory: String, destinations: [String: QueuePolicy], leftovers: LeftoverPolicy,
                                    legacyOutbox: String?, trackRetention: Duration?, openedAt: Timestamp, salvaging damaged: String?,
                                    sqliteVFS: String?, log: Logger) throws -> Loaded {
        let existed = access(path, F_OK) == 0
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
            try Self.configure(database)
            if let damaged {
                log.warning("journal: from \(damaged): \(JournalSalvage.salvage(from: damaged, into: database))")
            } else if let complaint = try database.damage() {
                throw SQLiteError.damaged(path: path, operation: "check every page", message: complaint)
            }
            try LegacyState.takeOver(into: database, directory: directory, legacyOutbox: legacyOutbox,
                                     destinations: Set(destinations.keys), log: log)
            let share = try Self.loadShare(database)
            var openShareReceivers: (share: ShareID, identities: Set<String>)?
            if let share, let recorded = try Self.loadShareReceivers(database), recorded.share == share.id {
                openShareReceivers = recorded
            }
            let (queues, leftoverQueues) = try Self.loadQueues(database, configured: destinations, leftovers: leftovers, log: log)
            var keys: [ShareID: Int64] = [:]
            try TrackStore.expire(before: trackRetention.map { openedAt - $0 }, keys: &keys, in: database)
            return Loaded(database: database, file: file, share: share, queues: queues, leftoverQueues: leftoverQueues,
                          openShareReceivers: openShareReceivers, newestTrackFix: try TrackStore.newest(in: database))
        } catch {
            file.close()
            throw error
        }
    }

    deinit {
        // The connection and the file's descriptor close with their last references (JournalFile's
        // deinit closes the connection first).
        executor.shutdown()
        if !closed { lock.close() }
    }

    /// The queues of destinations not configured now that were kept at open (`LeftoverPolicy.keep`,
    /// or `redirect` without a destination of their kind), in identity order.
    package private(set) var leftoverQueues: [LeftoverQueue]

    /// The journal's failure for good, once its file was found removed, replaced or damaged (the
    /// daemon says so when it stops, instead of "the share stays in the journal").
    package var lastingFailure: JournalError? { failure }

    /// Before a commit: the file must still be the one at the path, and (with a batch that starts
    /// or ends a share, and every `verifyInterval`) every page must read back sound from the file.
    /// A failure is kept: every later commit fails with it.
    private func checkFile(before batch: ShareBatch) throws(JournalError) {
        if let failure { throw failure }
        if let gone = file.whatBecameOfIt() {
            failure = .fileGone(gone)
            throw failure!
        }
        let promise = batch.share?.id != share?.id || batch.events.contains { if case .ended = $0 { true } else { false } }
        guard promise || ContinuousClock.now - verifiedAt >= Self.verifyInterval else { return }
        try verifyPages()
        if let failure { throw failure }
    }

    /// Reads every page back from the file; damage sets `failure`. Other errors (I/O) are thrown.
    private func verifyPages() throws(JournalError) {
        verifiedAt = .now
        do {
            if let complaint = try database.damage() { failure = .damaged(complaint) }
        } catch {
            if error.isDamage { failure = .damaged(error.message) } else { throw .sqlite(error) }
        }
    }

    /// The share that was active when the journal was last written, if any.
    package var activeShare: ShareSnapshot? { share }

    /// Commits `batch`: its events (one queue entry per destination, backlog policy and bounds
    /// applied), the share's state after it, and any acknowledgements waiting. On return it is on disk.
    /// - Throws: `JournalError` (disk full, I/O error); nothing of the batch is then committed and
    ///   the same batch may be committed again later.
    package func commit(_ batch: ShareBatch) throws(JournalError) {
        guard !closed else { throw .closed }
        try checkFile(before: batch)
        absorbAcknowledgements()
        let absorbedUpTo = inbox.withLock { $0.oldest }
        var changes: [String: (pending: Int, bytes: Int, dropped: Int, overBound: Int)] = [:]
        // The counters before the batch: acknowledgements flushed in the same transaction change
        // them too, so the batch's effect is applied as a difference.
        let before = queues.mapValues { (pending: $0.pending, bytes: $0.pendingBytes) }
        var tracksExpired: Timestamp?
        var newTrackPosition: Int64?
        var receivers = openShareReceivers
        var leftoverEvents: [String: Int] = [:]
        let trackShareKeysBefore = trackShareKeys
        do {
            try database.transaction { () throws(SQLiteError) in
                for event in batch.events {
                    // The queue bounds count the JSON a destination sends (the line without its newline).
                    let jsonBytes = event.jsonLineBytes.count - 1
                    let kind = EventKind(event)
                    try database.run("INSERT INTO events (record) VALUES (?1)", [.blob(BinaryRecord.encode(event))])
                    let position = database.lastInsertRowID
                    let shareReceivers = receivers?.share == event.shareID ? receivers?.identities : nil
                    if let shareReceivers, event.isFinal {
                        for name in shareReceivers.sorted() where queues[name] == nil {
                            try database.run("INSERT OR IGNORE INTO destinations (name, state) VALUES (?1, NULL)", [.text(name)])
                            try database.run("INSERT INTO queue (destination, position, share_id, kind, size) VALUES (?1, ?2, ?3, ?4, ?5)",
                                             [.text(name), .integer(position), .text(event.shareID.rawValue), .integer(kind.rawValue), .integer(Int64(jsonBytes))])
                            leftoverEvents[name, default: 0] += 1
                        }
                    }
                    for (name, queue) in queues where shareReceivers?.contains(name) ?? true {
                        var change = changes[name] ?? (queue.pending, queue.pendingBytes, 0, 0)
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
                                         [.text(name), .integer(position), .text(event.shareID.rawValue), .integer(kind.rawValue), .integer(Int64(jsonBytes))])
                        change.pending += 1
                        change.bytes += jsonBytes
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
                            change.overBound += 1
                        }
                        changes[name] = change
                    }
                }
                if trackRetention != nil, !batch.fixes.isEmpty {
                    let recordedAt = now()
                    newTrackPosition = try TrackStore.insert(batch.fixes, after: trackPosition, recordedAt: recordedAt,
                                                             keys: &trackShareKeys, into: database)
                    if let retention = trackRetention, recordedAt - tracksExpiredAt >= Self.trackExpiryInterval {
                        try TrackStore.expire(before: recordedAt - retention, keys: &trackShareKeys, in: database)
                        tracksExpired = recordedAt
                    }
                }
                if let snapshot = batch.share {
                    if receivers?.share != snapshot.id {
                        receivers = (snapshot.id, Set(queues.keys))
                        try database.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('share-receivers', ?1)",
                                         [.text(([snapshot.id.rawValue] + queues.keys.sorted()).joined(separator: "\n"))])
                    }
                    try database.run("INSERT OR REPLACE INTO share (id, record) VALUES (1, ?1)", [.blob(BinaryRecord.encode(snapshot))])
                } else if share != nil {
                    try database.run("DELETE FROM share")
                }
                try writeAcknowledgements()
            }
        } catch {
            trackShareKeys = trackShareKeysBefore  // keys given in the transaction were rolled back with it
            if error.isDamage { failure = .damaged(error.message) }
            throw failure ?? .sqlite(error)
        }
        // Written to a file no longer at the path: not durable, so not done.
        if let gone = file.whatBecameOfIt() {
            failure = .fileGone(gone)
            throw failure!
        }
        share = batch.share
        openShareReceivers = receivers
        for (name, count) in leftoverEvents {
            if let index = leftoverQueues.firstIndex(where: { $0.identity == name }) {
                leftoverQueues[index].events += count
            } else {
                leftoverQueues.append(LeftoverQueue(identity: name, events: count))
            }
        }
        if let tracksExpired { tracksExpiredAt = tracksExpired }
        if let newTrackPosition {
            trackPosition = newTrackPosition
            lastTrackedShare = batch.fixes.last?.shareID
        }
        for (name, change) in changes {
            queues[name]!.pending += change.pending - before[name]!.pending
            queues[name]!.pendingBytes += change.bytes - before[name]!.bytes
            queues[name]!.dropped += change.dropped
            // A `latest` queue drops stale updates as a matter of course; a bound reached is news,
            // said at once and then as one summary a window (it can come with every commit).
            if change.overBound > 0 {
                queues[name]!.droppedOverBound += change.overBound
                let total = queues[name]!.droppedOverBound
                let policy = queue(name)
                log.limited(.warning, key: "\(name) over bound",
                            "\(name): queue over its bound (\(policy.maxEvents) events, \(policy.maxBytes) bytes): "
                            + "\(total) oldest update(s) dropped so far; final updates and ended are never dropped") { _, window in
                    "\(name): queue still over its bound in the last \(window.shortText): \(total.thousandsSeparated) oldest update(s) dropped so far"
                }
            }
        }
        markAcknowledgementsFlushed(absorbedUpTo: absorbedUpTo)
    }

    /// Up to `limit` queued events of `destination` after `position`, in order, leaving out those
    /// acknowledged since the last commit (their rows are still in the queue table: the query asks
    /// for as many more, so that they never use up the limit and hide the events after them).
    package func pending(_ destination: String, after position: Int64, limit: Int) throws(JournalError) -> [QueuedEvent] {
        absorbAcknowledgements()
        guard let queue = queues[destination] else { return [] }
        do {
            return try database.withStatement("""
                SELECT q.position, e.record FROM queue q JOIN events e ON e.position = q.position
                WHERE q.destination = ?1 AND q.position > ?2 ORDER BY q.position LIMIT ?3
                """, [.text(destination), .integer(position), .integer(Int64(limit + queue.unflushed.count))]) { statement throws(SQLiteError) in
                var result: [QueuedEvent] = []
                while result.count < limit, try statement.step() {
                    let position = statement.int64(0)
                    guard !queue.unflushed.contains(position) else { continue }
                    guard let event = BinaryRecord.decodeEvent(statement.blob(1)) else {
                        throw SQLiteError(path: path, operation: "read event \(position)", code: 11, message: "not a share event")
                    }
                    result.append(QueuedEvent(position: position, event: event, json: Array(event.jsonLineBytes.dropLast()),
                                              destinationState: queue.state))
                }
                return result
            }
        } catch {
            if error.isDamage { failure = failure ?? .damaged(error.message) }
            throw error.isDamage ? failure! : .sqlite(error)
        }
    }

    /// Records that `destination` is done with the event at `position` (delivered, or dropped when
    /// `dropped`), with the destination's new state if any. Committed with the next batch or within
    /// `ackFlushDelay`. Does not wait for the journal's thread: a runner acknowledging every event
    /// costs no thread switch.
    package nonisolated func acknowledge(_ destination: String, position: Int64, dropped: Bool = false, state: [UInt8]? = nil) {
        let armTimer = inbox.withLock { inbox -> Bool in
            inbox.acknowledgements.append(Acknowledgement(destination: destination, position: position, dropped: dropped, state: state))
            if inbox.oldest == nil { inbox.oldest = .now }
            defer { inbox.timerArmed = true }
            return !inbox.timerArmed
        }
        if armTimer { armFlushTimer(after: Self.ackFlushDelay) }
    }

    /// The acknowledgement timer: on the timer's thread (arming it wakes nobody), then on the
    /// journal's own thread (no hop through the cooperative pool).
    private nonisolated func armFlushTimer(after delay: Duration) {
        DeadlineTimer.schedule(after: delay) { [executor] in
            Task(executorPreference: executor) { await self.flushFromTimer() }
        }
    }

    /// Moves what `acknowledge` recorded into the queues' in-memory state.
    private func absorbAcknowledgements() {
        let taken = inbox.withLock { inbox -> [Acknowledgement] in
            defer { inbox.acknowledgements.removeAll(keepingCapacity: true) }
            return inbox.acknowledgements
        }
        for ack in taken where queues[ack.destination] != nil {
            queues[ack.destination]!.unflushed.append(ack.position)
            if ack.dropped { queues[ack.destination]!.dropped += 1 } else { queues[ack.destination]!.acknowledged += 1 }
            if let state = ack.state {
                queues[ack.destination]!.state = state
                queues[ack.destination]!.stateUnflushed = true
            }
        }
    }

    /// Commits the acknowledgements waiting in memory (at once; normally they ride with a batch).
    package func flush() throws(JournalError) {
        guard !closed else { return }
        absorbAcknowledgements()
        let absorbedUpTo = inbox.withLock { $0.oldest }
        guard queues.values.contains(where: { !$0.unflushed.isEmpty || $0.stateUnflushed }) else { return }
        do { try database.transaction { () throws(SQLiteError) in try writeAcknowledgements() } } catch { throw .sqlite(error) }
        markAcknowledgementsFlushed(absorbedUpTo: absorbedUpTo)
    }

    /// Up to `limit` fixes of `share`'s track (nil: the share recorded last) after `position` (0 for
    /// the first page), in order; nil when the journal keeps no fix of that share.
    package func track(_ share: ShareID?, after position: Int64, limit: Int) throws(JournalError) -> TrackPage? {
        guard !closed else { throw .closed }
        guard let share = share ?? lastTrackedShare else { return nil }
        do { return try TrackStore.page(share, after: position, limit: max(1, limit), in: database) } catch {
            throw .sqlite(error)
        }
    }

    /// A destination's queue in numbers, for `liveloc status`.
    package func queueStatus(_ destination: String) -> QueueStatus? {
        absorbAcknowledgements()
        guard let queue = queues[destination] else { return nil }
        return QueueStatus(pending: queue.pending - queue.unflushed.count, pendingBytes: queue.pendingBytes,
                           acknowledged: queue.acknowledged, dropped: queue.dropped)
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
        file.close()  // the connection, then the file's descriptor
        lock.close()
        // The thread stays until the journal is gone (deinit): a timer's task may still call in.
    }

    // MARK: - Private

    private func queue(_ name: String) -> QueuePolicy { queues[name]!.policy }

    /// The acknowledgement timer: commits what waited `ackFlushDelay` without a batch to carry it,
    /// and re-arms itself while younger acknowledgements wait.
    private func flushFromTimer() {
        let due = inbox.withLock { inbox -> Duration? in
            guard let oldest = inbox.oldest else {
                inbox.timerArmed = false
                return nil
            }
            return oldest + Self.ackFlushDelay - .now
        }
        guard let due, !closed else { return }
        if due > .zero {
            armFlushTimer(after: due)
            return
        }
        inbox.withLock { $0.timerArmed = false }
        do { try flush() } catch {
            log.warning("journal: cannot commit acknowledgements (\(error)); retrying with the next commit")
        }
    }

    private func writeAcknowledgements() throws(SQLiteError) {
        for (name, queue) in queues where !queue.unflushed.isEmpty || queue.stateUnflushed {
            for position in queue.unflushed {
                try database.withStatement("DELETE FROM queue WHERE destination = ?1 AND position = ?2 RETURNING size",
                                           [.text(name), .integer(position)]) { statement throws(SQLiteError) in
                    while try statement.step() {
                        queues[name]!.pending -= 1
                        queues[name]!.pendingBytes -= Int(statement.int64(0))
                        collectable += 1
                    }
                }
            }
            if queue.stateUnflushed {
                try database.run("UPDATE destinations SET state = ?2 WHERE name = ?1",
                                 [.text(name), queue.state.map { .blob($0) } ?? .null])
            }
        }
        // Events no queue refers to are removed in bulk: deleting them one by one would free and
        // reallocate a page (and rewrite the free list) with every commit.
        if collectable >= Self.collectEvery || (closing && collectable > 0) {
            try collectEvents()
            collectable = 0
        }
    }

    /// How many acknowledged events make a collection of the events table.
    private static let collectEvery = 256

    /// After a commit that carried every acknowledgement absorbed so far: the timer's deadline is
    /// cleared unless newer ones arrived meanwhile (they keep theirs).
    private func markAcknowledgementsFlushed(absorbedUpTo: ContinuousClock.Instant?) {
        inbox.withLock { inbox in
            if inbox.acknowledgements.isEmpty { inbox.oldest = nil } else if inbox.oldest == absorbedUpTo { inbox.oldest = .now }
        }
        for name in queues.keys {
            queues[name]!.unflushed.removeAll()
            queues[name]!.stateUnflushed = false
        }
    }

    /// Removes the events no queue refers to any more (leftover queues included).
    private func collectEvents() throws(SQLiteError) {
        let oldest = try database.withStatement("SELECT min(position) FROM queue") { statement throws(SQLiteError) in
            try statement.step() && !statement.isNull(0) ? statement.int64(0) : Int64.max
        }
        if oldest == .max {
            // The newest event stays: SQLite numbers a row of an empty table 1 again, and positions
            // must keep increasing (a runner's cursor would skip the next events).
            try database.run("DELETE FROM events WHERE position < (SELECT max(position) FROM events)")
        } else {
            try database.run("DELETE FROM events WHERE position < ?1", [.integer(oldest)])
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
            try lock.replaceContents(Array("\(getpid())\n".utf8), path: path)
        } catch let error as SystemError {
            lock.close()
            throw .directory(error)
        } catch {
            throw error as! JournalError
        }
        return lock
    }

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
        try database.execute("PRAGMA journal_size_limit=1048576")
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
        }
    }

    /// The open share's receivers as recorded when it started (one text: its id, then one identity a line).
    private static func loadShareReceivers(_ database: SQLiteConnection) throws(SQLiteError) -> (share: ShareID, identities: Set<String>)? {
        let text = try database.withStatement("SELECT value FROM meta WHERE key = 'share-receivers'") { statement throws(SQLiteError) in
            try statement.step() ? statement.text(0) : nil
        }
        guard let lines = text?.split(separator: "\n", omittingEmptySubsequences: false), let id = lines.first else { return nil }
        return (ShareID(rawValue: String(id)), Set(lines.dropFirst().map(String.init)))
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

    private static func loadQueues(_ database: SQLiteConnection, configured: [String: QueuePolicy], leftovers policy: LeftoverPolicy,
                                   log: Logger) throws(SQLiteError) -> ([String: Queue], [LeftoverQueue]) {
        var queues: [String: Queue] = [:]
        var kept: [LeftoverQueue] = []
        try database.transaction { () throws(SQLiteError) in
            for (name, policy) in configured {
                try database.run("INSERT OR IGNORE INTO destinations (name, state) VALUES (?1, NULL)", [.text(name)])
                queues[name] = Queue(policy: policy)
            }
            let known = try database.withStatement("""
                SELECT d.name, (SELECT count(*) FROM queue q WHERE q.destination = d.name) FROM destinations d ORDER BY d.name
                """) { statement throws(SQLiteError) in
                var found: [LeftoverQueue] = []
                while try statement.step() { found.append(LeftoverQueue(identity: statement.text(0), events: Int(statement.int64(1)))) }
                return found
            }
            for leftover in known where configured[leftover.identity] == nil {
                let sameKind = configured.keys.filter { LeftoverQueue(identity: $0, events: 0).kind == leftover.kind }
                if leftover.events == 0 {
                    try database.run("DELETE FROM destinations WHERE name = ?1", [.text(leftover.identity)])
                } else if policy == .discard {
                    try database.run("DELETE FROM queue WHERE destination = ?1", [.text(leftover.identity)])
                    try database.run("DELETE FROM destinations WHERE name = ?1", [.text(leftover.identity)])
                    log.notice("journal: discarded \(leftover.events) event(s) queued for \(leftover.receiver) (leftovers = discard)")
                } else if policy == .redirect, sameKind.count == 1, let target = sameKind.first {
                    // Positions are the events' own, so the moved rows keep their order among the target's.
                    try database.run("UPDATE OR IGNORE queue SET destination = ?2 WHERE destination = ?1",
                                     [.text(leftover.identity), .text(target)])
                    try database.run("DELETE FROM queue WHERE destination = ?1", [.text(leftover.identity)])
                    // Its state (a Telegram message id, say) belongs to the old receiver: it is not carried over.
                    try database.run("DELETE FROM destinations WHERE name = ?1", [.text(leftover.identity)])
                    log.notice("journal: \(leftover.events) event(s) queued for \(leftover.receiver) redirected to \(target) (leftovers = redirect)")
                } else {
                    kept.append(leftover)
                    log.warning("journal: \(leftover); they go to that receiver only: run with it configured to deliver them, "
                        + "or with leftovers = discard to remove them")
                }
            }
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
