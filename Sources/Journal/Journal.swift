import Delivery
import LiveLocation
import Locking
import SystemIO

/// The durable store of a state directory: the active share's state and one queue per durable
/// destination, in one SQLite database (`journal.sqlite`, WAL, `synchronous=FULL`, mode 0600,
/// locked by one process).
///
/// Each batch of the broadcaster is committed in one synced transaction (its events, a queue entry
/// per destination, the share's state after it) before anything downstream sees it; several batches
/// may share one (`journal.sync_delay`: the dispatcher holds updates in memory, then commits them
/// together). Acknowledgements are
/// group-committed: kept in memory and written with the next batch, or at most `ackFlushDelay` later,
/// or at `close()`; a crash in between re-sends those few events with the same ids (at least once).
///
/// The actor runs on a thread of its own: SQLite's commits and fsyncs never block the cooperative
/// pool or the share's thread.
///
/// Its jobs, a file each:
/// - JournalOpening.swift: opening (the lock, the file, the schema, loading the share and the
///   queues) and closing;
/// - JournalCommit.swift: committing a batch, one SQLite transaction;
/// - JournalAcknowledgements.swift: the queues' reads and acknowledgements (group-committed);
/// - JournalLeftovers.swift: the queues of receivers not configured now;
/// - JournalFormerIdentities.swift: queues an earlier version named otherwise, renamed at open;
/// - ShareIDStore.swift: every share id ever used (`takeShareID`: a caller's id starts one share only);
/// - JournalStatus.swift: what the journal holds, read back (status, the track).
package actor Journal {
    /// `journal.sqlite` in the state directory.
    package nonisolated let path: String
    let executor: ThreadExecutor
    let database: SQLiteConnection
    /// The file as opened: to notice it removed or replaced (see `JournalFile`).
    let file: JournalFile
    /// Set once the file is found gone or damaged: every later commit fails with it. Damage is
    /// recorded in the high-water mark at once (synced): the next start moves the journal aside.
    var failure: JournalError? {
        didSet {
            guard case .damaged(let reason) = failure, highWater.damage == nil else { return }
            highWater.damage = reason
            writeHighWaterMark(sync: true)
        }
    }
    /// `journal.high-water`: what has left the process, outside SQLite's files (nil when it cannot
    /// be opened: said once at open).
    let highWaterFile: HighWaterMarkFile?
    /// What the mark says now: written after each commit that carries events.
    var highWater: HighWaterMark
    /// When the file's pages were last read back and checked (`SQLiteConnection.damage`).
    var verifiedAt = ContinuousClock.now
    /// How often the pages are read back from the file and checked, besides with every batch that
    /// starts or ends a share (what `start` and `stop` promise).
    package static let verifyInterval: Duration = .seconds(60)
    let log: Logger
    /// `journal.lock`, locked (flock) while the journal is open: one process per state directory.
    let lock: FileDescriptor
    var queues: [String: Queue]
    var share: ShareSnapshot?
    /// The receivers (identities) of the open share, as configured when it started: its events go
    /// to those of them configured now, and its end (final update, `ended`) to the others too, as
    /// leftovers. A share started by an earlier run never reaches a receiver added since.
    var openShareReceivers: ShareReceivers?
    /// The queues of destinations not configured now that were kept at open (`LeftoverPolicy.keep`,
    /// or `redirect` without a destination of their kind), in identity order.
    package internal(set) var leftoverQueues: [LeftoverQueue]
    /// Acknowledgements recorded without waiting for the journal's thread (see `acknowledge`).
    let inbox = Locked(AckInbox())
    /// How long a share's track is kept after its last fix; nil keeps none (`track.retention = off`).
    package nonisolated let trackRetention: Duration?
    /// The wall clock the track's retention is measured on.
    let now: @Sendable () -> Timestamp
    var tracksExpiredAt: Timestamp
    /// The newest track fix's number and share.
    var trackPosition: Int64 = 0
    var lastTrackedShare: ShareID?
    /// The shares' keys in the track table.
    var trackShareKeys: [ShareID: Int64] = [:]
    /// How often old tracks are looked for, besides at open.
    static let trackExpiryInterval: Duration = .seconds(3600)
    var closed = false
    var closing = false
    /// Queue entries removed since the events table was last collected.
    var collectable = 0
    /// Share ids taken for a start in this run (`takeShareID`), committed or not yet.
    var takenShareIDs: Set<ShareID> = []

    /// How long an acknowledgement may wait in memory for the next commit. At 1 fix/s a batch comes
    /// every second and carries the acknowledgements with it; this only bounds what an idle journal
    /// re-sends after a crash.
    package static let ackFlushDelay: Duration = .seconds(5)

    package nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The journal's thread as a task executor: a task that prefers it (the daemon's source pump and
    /// dispatcher) runs where the commits run, so that a fix on its way to the disk wakes one thread,
    /// not three (bench/daemon-footprint.sh counts the wake-ups).
    package nonisolated var taskExecutor: any TaskExecutor { executor }
    /// The journal's thread itself (to watch a descriptor on: ThreadExecutor.watchReadable).
    package nonisolated var thread: ThreadExecutor { executor }

    /// A share and the receivers (identities) it was started for.
    typealias ShareReceivers = (share: ShareID, identities: Set<String>)

    /// A destination's queue as the journal keeps it in memory.
    struct Queue {
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

    struct AckInbox {
        var acknowledgements: [Acknowledgement] = []
        /// When the oldest acknowledgement not yet committed was made; nil when none waits.
        var oldest: ContinuousClock.Instant?
        /// The flush timer, while armed (cancelled when a commit carried everything first).
        var timer: DeadlineTimer.ScheduledAction?

        /// Cancels the flush timer, if armed: it wakes nobody.
        mutating func disarmTimer() {
            if let timer { DeadlineTimer.cancel(timer) }
            timer = nil
        }
    }

    struct Acknowledgement {
        var destination: String
        var position: Int64
        var dropped: Bool
        var state: [UInt8]?
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
        let path = directory + "/journal.sqlite"
        self.path = path
        self.log = log
        (lock, executor) = try Self.takeDirectory(directory)
        do { highWaterFile = try HighWaterMarkFile(directory: directory) } catch {
            log.warning("journal: \(error); without it, a damaged WAL at the next start could give seqs that left the process again")
            highWaterFile = nil
        }
        let mark = highWaterFile?.read()
        let loaded: Loaded
        do {
            loaded = try Self.openAndLoad(path: path, directory: directory, destinations: destinations, leftovers: leftovers,
                                          legacyOutbox: legacyOutbox, trackRetention: trackRetention, openedAt: openedAt,
                                          highWater: mark, sqliteVFS: sqliteVFS, log: log)
        } catch {
            executor.shutdown()
            lock.unlockAndClose()  // a failed open leaves the directory free for the next attempt
            throw error
        }
        (database, file, share, queues, leftoverQueues) = (loaded.database, loaded.file, loaded.share, loaded.queues, loaded.leftoverQueues)
        highWater = loaded.highWater
        // What the journal holds now is the mark (its damage cleared once moved aside): synced, so
        // that a power cut does not bring back a mark the journal has already dealt with.
        if loaded.highWater != mark, let highWaterFile {
            do { try highWaterFile.write(loaded.highWater, sync: true) } catch {
                log.warning("journal: cannot write \(highWaterFile.path): \(error)")
            }
        }
        openShareReceivers = loaded.openShareReceivers
        if let newest = loaded.newestTrackFix {
            trackPosition = newest.position
            lastTrackedShare = newest.share
        }
    }

    deinit {
        // The connection and the file's descriptor close with their last references (JournalFile's
        // deinit closes the connection first).
        executor.shutdown()
        if !closed { lock.unlockAndClose() }
    }
}
