import Delivery
import SystemIO

/// The queues' reads and acknowledgements: a runner reads its queue, acknowledges each event without
/// waiting for the journal's thread, and the acknowledgements are group-committed (with the next
/// batch, or `ackFlushDelay` later, or at close).
extension Journal {
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
        inbox.withLock { inbox in
            inbox.acknowledgements.append(Acknowledgement(destination: destination, position: position, dropped: dropped, state: state))
            if inbox.oldest == nil { inbox.oldest = .now }
            if inbox.timer == nil { inbox.timer = armFlushTimer(after: Self.ackFlushDelay) }
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

    /// The acknowledgement timer: on the timer's thread (arming it wakes nobody), then, when
    /// acknowledgements still wait, on the journal's own thread (no hop through the cooperative pool).
    /// A commit that carries them all first cancels it (`markAcknowledgementsFlushed`).
    private nonisolated func armFlushTimer(after delay: Duration) -> DeadlineTimer.ScheduledAction {
        DeadlineTimer.schedule(after: delay) { [executor] in
            let waiting = self.inbox.withLock { inbox -> Bool in
                inbox.timer = nil
                return inbox.oldest != nil
            }
            if waiting { Task(executorPreference: executor) { await self.flushFromTimer() } }
        }
    }

    /// The acknowledgement timer: commits what waited `ackFlushDelay` without a batch to carry it,
    /// and re-arms itself while younger acknowledgements wait.
    private func flushFromTimer() {
        let due = inbox.withLock { inbox -> Duration? in
            guard let oldest = inbox.oldest else { return nil }
            let due = oldest + Self.ackFlushDelay - .now
            if due > .zero, inbox.timer == nil { inbox.timer = armFlushTimer(after: due) }
            return due
        }
        guard let due, due <= .zero, !closed else { return }
        do { try flush() } catch {
            log.warning("journal: cannot commit acknowledgements (\(error)); retrying with the next commit")
        }
    }

    /// Moves what `acknowledge` recorded into the queues' in-memory state.
    func absorbAcknowledgements() {
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

    /// In a transaction: the acknowledged and dropped entries out of their queues, the destinations'
    /// new states, and (every `collectEvery` entries, and at close) the events no queue refers to.
    func writeAcknowledgements() throws(SQLiteError) {
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
    func markAcknowledgementsFlushed(absorbedUpTo: ContinuousClock.Instant?) {
        inbox.withLock { inbox in
            if inbox.acknowledgements.isEmpty {
                inbox.oldest = nil
                inbox.disarmTimer()  // nothing left for it
            } else if inbox.oldest == absorbedUpTo {
                inbox.oldest = .now
            }
        }
        for name in queues.keys {
            queues[name]!.unflushed.removeAll()
            queues[name]!.stateUnflushed = false
        }
    }

    /// Removes the events no queue refers to any more (leftover queues included), and records for
    /// a salvage what it needs to queue the events kept again (issue 29: a salvage kept events and
    /// dropped their queue entries): for each configured destination, the position before which it
    /// is done with every event (`done-before NAME`: its oldest queued, or past the newest event),
    /// and the receivers of the shares that still have queued events or are open.
    func collectEvents() throws(SQLiteError) {
        for name in queues.keys {
            try database.run("""
                INSERT OR REPLACE INTO meta (key, value) VALUES (?1, (
                    SELECT coalesce(min(position), (SELECT coalesce(max(position), 0) + 1 FROM events)) FROM queue WHERE destination = ?2))
                """, [.text(Self.doneBeforeKey(name)), .text(name)])
        }
        try database.run("""
            DELETE FROM meta WHERE key GLOB 'receivers *' AND key <> ?1
                AND substr(key, 11) NOT IN (SELECT DISTINCT share_id FROM queue)
            """, [.text(share.map { Self.receiversKey($0.id) } ?? "")])
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
}
