/// Whether a commit waits for the disk (`Journal.commit(_:sync:)`).
package enum CommitSync: Sendable {
    /// Synced before the commit returns (SQLite's `synchronous=FULL`): the batch, and every commit
    /// before it, survive a power cut from then on.
    case now
    /// Written without a sync: a later synced transaction carries it to the disk. Until then its
    /// events are not handed to any destination (`Journal.pending`), so a power cut that takes it
    /// back takes back nothing that left the process.
    case deferred
}
