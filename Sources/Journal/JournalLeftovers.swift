import LiveLocation
import SystemIO

/// Leftovers: the queues of receivers not configured now (see `LeftoverPolicy`), settled at open,
/// and the end of a share queued for the receivers it was started for that are gone since.
extension Journal {
    /// At open, in the loading transaction: each queue of a receiver not in `configured` is removed
    /// when empty, and otherwise discarded, redirected to the one configured destination of its kind,
    /// or kept, as `policy` says. Returns the queues kept, in identity order.
    static func settleLeftovers(_ database: SQLiteConnection, configured: Set<String>, policy: LeftoverPolicy,
                                log: Logger) throws(SQLiteError) -> [LeftoverQueue] {
        var kept: [LeftoverQueue] = []
        let known = try database.withStatement("""
            SELECT d.name, (SELECT count(*) FROM queue q WHERE q.destination = d.name) FROM destinations d ORDER BY d.name
            """) { statement throws(SQLiteError) in
            var found: [LeftoverQueue] = []
            while try statement.step() { found.append(LeftoverQueue(identity: statement.text(0), events: Int(statement.int64(1)))) }
            return found
        }
        for leftover in known where !configured.contains(leftover.identity) {
            let sameKind = configured.filter { LeftoverQueue(identity: $0, events: 0).kind == leftover.kind }
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
        return kept
    }

    /// In a commit's transaction: a share's end (final update, `ended`) also goes to the receivers
    /// it was started for that are not configured now (`receivers`), as leftovers, so that none of
    /// them is left showing a live share. Returns those receivers.
    func queueEndForLeftoverReceivers(_ row: QueueRow, receivers: Set<String>) throws(SQLiteError) -> [String] {
        let gone = receivers.sorted().filter { queues[$0] == nil }
        for name in gone {
            try database.run("INSERT OR IGNORE INTO destinations (name, state) VALUES (?1, NULL)", [.text(name)])
            try insert(row, into: name)
        }
        return gone
    }

    /// After a commit: `events` more for each leftover receiver named.
    func countLeftoverEvents(_ events: [String: Int]) {
        for (name, count) in events {
            if let index = leftoverQueues.firstIndex(where: { $0.identity == name }) {
                leftoverQueues[index].events += count
            } else {
                leftoverQueues.append(LeftoverQueue(identity: name, events: count))
            }
        }
    }
}
