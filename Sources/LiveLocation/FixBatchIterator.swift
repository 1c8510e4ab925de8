/// A source's fix iterator that can hand over every fix it already holds in one call: a log
/// replayed as fast as possible costs one call (and one async frame) per block of fixes, not per
/// fix. `LiveLocationBroadcaster.pump(from:)` uses it when a source's iterator conforms.
public protocol FixBatchIterator: AsyncIteratorProtocol where Element == Fix {
    /// Hands fixes to `body`, in order, one at a time, while `body` returns true and more are
    /// ready without waiting; first waits (paces) for one when none is. Each fix is handed exactly
    /// as `next(isolation:)` would return it (the source's clock already at its time). Returns false,
    /// having handed nothing, at the end of the source (or when the task is cancelled).
    mutating func nextFixes(isolation actor: isolated (any Actor)?, _ body: (Fix) -> Bool) async throws(Failure) -> Bool
}
