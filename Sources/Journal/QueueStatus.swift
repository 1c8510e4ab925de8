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
