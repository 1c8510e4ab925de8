import LiveLocation

/// The rule of `journal.sync_delay`, pure: which batches may wait in memory so that one commit and
/// one sync carry several, and when those held must be committed. The dispatcher's loop gives it
/// each batch with the instant it came (tests give instants of their own: a manual clock).
///
/// A batch may wait only when it holds updates of the share already open, none of them final, no
/// caller waits for it, and the oldest batch held would not be due by the next batch (expected
/// after the last interval between batches). Everything else is committed at once with all that is
/// held before it, in order: a share's start and end are handed on without delay.
package struct HeldBatches {
    /// How long an update may wait (nil: none waits).
    package let syncDelay: Duration?
    /// The batches held, in order.
    package private(set) var batches: [ShareBatch] = []
    /// When the oldest batch held came.
    package private(set) var since: ContinuousClock.Instant?
    /// When the last batch came, and the interval before it.
    private var lastBatchAt: ContinuousClock.Instant?
    private var interval: Duration?
    /// The share open after the last batch taken (held or committed).
    private var share: ShareID?

    package init(syncDelay: Duration?) {
        self.syncDelay = syncDelay
    }

    /// When the batches held must be committed, even if no batch comes; nil when none is held.
    package var deadline: ContinuousClock.Instant? {
        guard let since, let syncDelay else { return nil }
        return since + syncDelay
    }

    /// The newest input held (its callers wait for it); nil when none is held.
    package var heldThrough: UInt64? { batches.last?.through }

    /// Takes `batch`, which came at `now` (`awaited`: a caller waits for one of its inputs). Returns
    /// true when it is held, false when everything held, `batch` last, must be committed now.
    package mutating func take(_ batch: ShareBatch, at now: ContinuousClock.Instant, awaited: Bool) -> Bool {
        if let last = lastBatchAt { interval = now - last }
        lastBatchAt = now
        let shareBefore = share
        share = batch.share?.id
        batches.append(batch)
        guard let syncDelay, !awaited, let open = batch.share?.id, open == shareBefore, !batch.events.isEmpty,
              batch.events.allSatisfy({ $0.shareID == open && !$0.isFinal }) else { return false }
        let heldSince = since ?? now
        guard now - heldSince + (interval ?? .zero) < syncDelay else { return false }
        since = heldSince
        return true
    }

    /// Whether the batches held are due at `now` (their deadline has come).
    package func isDue(at now: ContinuousClock.Instant) -> Bool {
        deadline.map { now >= $0 } ?? false
    }

    /// The batches to commit, in order; none is held after.
    package mutating func takeAll() -> [ShareBatch] {
        defer {
            batches.removeAll(keepingCapacity: true)
            since = nil
        }
        return batches
    }
}
