import Delivery
import SystemIO

/// Queues under an identity an earlier version gave their receiver (`QueuePolicy.formerIdentities`),
/// renamed at open to the identity of the destination configured now.
extension Journal {
    /// At open, before the open share's receivers and the queues are read: the queue (its rows, its
    /// state, its place among the open share's receivers) of each former identity not configured
    /// now becomes the queue of the one configured destination that names it as former. A former
    /// identity that two configured destinations name (two webhook URLs that differ only in their
    /// user) cannot say whose it was: it stays as it is and is settled as a leftover.
    static func adoptFormerQueues(_ database: SQLiteConnection, configured: [String: QueuePolicy], log: Logger) throws(SQLiteError) {
        var claimants: [String: [String]] = [:]
        for (name, policy) in configured {
            for former in policy.formerIdentities where former != name && configured[former] == nil {
                claimants[former, default: []].append(name)
            }
        }
        guard !claimants.isEmpty else { return }
        try database.transaction { () throws(SQLiteError) in
            for (former, names) in claimants.sorted(by: { $0.key < $1.key }) {
                let known = try database.withStatement("SELECT 1 FROM destinations WHERE name = ?1", [.text(former)]) {
                    statement throws(SQLiteError) in try statement.step()
                }
                guard known else { continue }
                guard names.count == 1, let name = names.first else {
                    log.warning("journal: the queue of \(former) (named so by an earlier version) could be any of "
                        + names.sorted().joined(separator: ", ") + "'s: it is not given to either; it is settled as a leftover")
                    continue
                }
                let events = try database.run("UPDATE OR IGNORE queue SET destination = ?2 WHERE destination = ?1", [.text(former), .text(name)])
                try database.run("DELETE FROM queue WHERE destination = ?1", [.text(former)])
                // Its state (a message id, say) is the same receiver's: it comes along.
                try database.run("UPDATE OR IGNORE destinations SET name = ?2 WHERE name = ?1", [.text(former), .text(name)])
                try database.run("DELETE FROM destinations WHERE name = ?1", [.text(former)])
                // Its place among each share's receivers (`receivers SHARE`, one identity a line; before
                // issue 29 the open share's only, `share-receivers`), and how far it is done.
                let receivers = "key = 'share-receivers' OR key LIKE 'receivers %'"
                try database.run("""
                    UPDATE meta SET value = replace(char(10) || value || char(10), char(10) || ?1 || char(10), char(10) || ?2 || char(10))
                    WHERE \(receivers)
                    """, [.text(former), .text(name)])
                try database.run("UPDATE meta SET value = substr(value, 2, length(value) - 2) WHERE \(receivers)")
                try database.run("UPDATE OR IGNORE meta SET key = ?2 WHERE key = ?1",
                                 [.text(doneBeforeKey(former)), .text(doneBeforeKey(name))])
                try database.run("DELETE FROM meta WHERE key = ?1", [.text(doneBeforeKey(former))])
                log.notice("journal: the queue of \(former) (\(events) event(s)), as an earlier version named it, is now \(name)'s")
            }
        }
    }
}
