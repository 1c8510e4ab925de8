import Locking

/// The fix sequence of a live source (gpsd, a serial receiver): `run` feeds it, on a task of its
/// own, until it returns or the consumer goes away (its task cancelled, or the sequence and its
/// iterators gone); `run`'s task is then cancelled. A consumer slower than the source sees the
/// newest `limit` fixes.
///
/// Not an `AsyncStream`: the standard library's stream is generic code, not specialized for `Fix`
/// outside the standard library, and its `yield` (a `Fix` handed to the waiting consumer through
/// the unspecialized buffer) was a large part of livelocd's CPU in a share (docs/benchmarks.md). This
/// one is a lock, an array and one waiting continuation, and its iterator hands every fix it holds
/// over in one call (`FixBatchIterator`).
package struct LiveFixes: AsyncSequence, Sendable {
    package typealias Element = Fix
    package typealias Failure = Never

    /// The producer's side: what `run` is given.
    package struct Continuation: Sendable {
        fileprivate let storage: Storage

        /// Hands `fix` on (dropping the oldest held fix when `limit` are waiting already). Ignored
        /// once the sequence ended.
        package func yield(_ fix: Fix) { storage.yield(fix) }
    }

    private let consumer: Consumer

    /// Starts `run` on a task of its own, feeding the sequence; the sequence ends when `run` returns.
    package init(bufferingNewest limit: Int = 256, _ run: @escaping @Sendable (Continuation) async -> Void) {
        let storage = Storage(limit: limit)
        let continuation = Continuation(storage: storage)
        let task = Task {
            await run(continuation)
            storage.finish()
        }
        storage.onTermination { task.cancel() }
        consumer = Consumer(storage: storage)
    }

    package func makeAsyncIterator() -> Iterator { Iterator(consumer: consumer) }

    /// How many fixes are in memory (held, and dropped but not yet let go): at most twice `limit`.
    var retainedCount: Int { consumer.storage.retainedCount }

    package struct Iterator: FixBatchIterator {
        fileprivate let consumer: Consumer

        package mutating func next() async -> Fix? {
            await next(isolation: nil)
        }

        package mutating func next(isolation actor: isolated (any Actor)?) async -> Fix? {
            guard await consumer.storage.waitForFixes(isolation: actor) else { return nil }
            return consumer.storage.take()
        }

        package mutating func nextFixes(isolation actor: isolated (any Actor)?, _ body: (Fix) -> Bool) async -> Bool {
            guard await consumer.storage.waitForFixes(isolation: actor) else { return false }
            while let fix = consumer.storage.take() {
                if !body(fix) { break }
            }
            return true
        }
    }

    /// The consumer's side: when the sequence and its iterators are gone, so is the consumer.
    fileprivate final class Consumer: Sendable {
        let storage: Storage
        init(storage: Storage) { self.storage = storage }
        deinit { storage.terminate() }
    }

    fileprivate final class Storage: Sendable {
        private struct State {
            var fixes: [Fix] = []
            var head = 0
            var waiter: CheckedContinuation<Void, Never>?
            var ended = false
            var onTermination: (@Sendable () -> Void)?

            var isEmpty: Bool { head == fixes.count }
        }

        private let state = Locked(State())
        private let limit: Int

        init(limit: Int) { self.limit = Swift.max(1, limit) }

        func onTermination(_ action: @escaping @Sendable () -> Void) {
            state.withLock { $0.onTermination = action }
        }

        func yield(_ fix: Fix) {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.ended else { return nil }
                if state.fixes.count - state.head == limit {
                    // The oldest is dropped. A consumer that never catches up (one held behind a
                    // full disk) never empties the array: the dropped ones go once `limit` have.
                    state.head += 1
                    if state.head == limit {
                        state.fixes.removeFirst(limit)
                        state.head = 0
                    }
                }
                state.fixes.append(fix)
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// The producer returned: the consumer takes what is held, then the sequence ends.
        func finish() {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.ended = true
                state.onTermination = nil
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// The consumer went away: the producer's task is cancelled; nothing more is handed on.
        func terminate() {
            let (waiter, action) = state.withLock { state in
                state.ended = true
                state.fixes.removeAll()
                state.head = 0
                defer { state.waiter = nil; state.onTermination = nil }
                return (state.waiter, state.onTermination)
            }
            waiter?.resume()
            action?()
        }

        /// How many fixes the buffer keeps in memory, dropped ones not yet let go included.
        var retainedCount: Int { state.withLock { $0.fixes.count } }

        /// The oldest fix held, if any.
        func take() -> Fix? {
            state.withLock { state in
                guard !state.isEmpty else { return nil }
                defer {
                    state.head += 1
                    if state.isEmpty {
                        state.fixes.removeAll(keepingCapacity: state.fixes.count <= 64)
                        state.head = 0
                    }
                }
                return state.fixes[state.head]
            }
        }

        /// Waits until a fix is held (true) or the sequence ended with none held (false). A
        /// cancellation of the waiting task ends the sequence (as a consumer gone away).
        func waitForFixes(isolation actor: isolated (any Actor)?) async -> Bool {
            while true {
                let ready = state.withLock { state -> Bool? in
                    if !state.isEmpty { return true }
                    return state.ended ? false : nil
                }
                if let ready { return ready }
                if Task.isCancelled {
                    terminate()
                    return false
                }
                await withTaskCancellationHandler {
                    await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state -> Bool in
                            guard state.isEmpty, !state.ended else { return true }
                            state.waiter = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    terminate()
                }
            }
        }
    }
}
