import LiveLocation

/// What the journal holds, read back: the active share, its failure, a queue in numbers, the track.
extension Journal {
    /// The share that was active when the journal was last written, if any.
    package var activeShare: ShareSnapshot? { share }

    /// The journal's failure for good, once its file was found removed, replaced or damaged (the
    /// daemon says so when it stops, instead of "the share stays in the journal").
    package var lastingFailure: JournalError? { failure }

    /// A destination's queue in numbers, for `liveloc status`.
    package func queueStatus(_ destination: String) -> QueueStatus? {
        absorbAcknowledgements()
        guard let queue = queues[destination] else { return nil }
        return QueueStatus(pending: queue.pending - queue.unflushed.count, pendingBytes: queue.pendingBytes,
                           acknowledged: queue.acknowledged, dropped: queue.dropped)
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
}
