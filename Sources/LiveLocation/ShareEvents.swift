import Locking

/// A broadcaster's output, in order: an async sequence of batches with one consumer.
///
/// Unlike an `AsyncStream`, it pushes back: a source pump waits while `capacity` events are
/// waiting to be consumed, so a log replayed as fast as possible runs in flat memory. Events are
/// never dropped; the broadcaster's own emissions (stop, expiry) never wait. A consumer takes
/// everything emitted since its last take as one batch (one lock, one commit, one write).
public struct ShareBatches: AsyncSequence, Sendable {
    let channel: EventChannel

    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: channel)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let channel: EventChannel

        /// Everything emitted since the last call (waits while nothing is); nil once the broadcaster
        /// finished and every batch was taken, or when the consuming task is cancelled.
        public mutating func next() async -> ShareBatch? {
            await channel.takeAll(isolation: nil)
        }

        /// `next()`, run on the caller's actor (no task switch).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ShareBatch? {
            await channel.takeAll(isolation: actor)
        }
    }
}

/// The events of a broadcaster's batches one by one, for consumers that need no state (tests).
public struct ShareEvents: AsyncSequence, Sendable {
    let batches: ShareBatches

    public func makeAsyncIterator() -> Iterator {
        Iterator(batches: batches.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var batches: ShareBatches.Iterator
        private var events: [ShareEvent] = []
        private var index = 0

        init(batches: ShareBatches.Iterator) {
            self.batches = batches
        }

        public mutating func next() async -> ShareEvent? {
            await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> ShareEvent? {
            while index == events.count {
                guard let batch = await batches.next(isolation: actor) else { return nil }
                events = batch.events
                index = 0
            }
            defer { index += 1 }
            return events[index]
        }
    }
}

/// The buffer between the broadcaster and its consumer. The consumer takes everything buffered at
/// once (one lock per batch, not per event).
final class EventChannel: Sendable {
    private struct State {
        var buffer: [ShareEvent] = []
        /// Accepted fixes for the track, waiting for the next batch.
        var fixes: [TrackedFix] = []
        /// The share's state after the newest emission, and that emission's number.
        var share: ShareSnapshot?
        var emitted: UInt64 = 0
        /// Emitted but not yet taken.
        var pending = false
        var finished = false
        var consumer: CheckedContinuation<ShareBatch?, Never>?
        var producers: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextProducerID: UInt64 = 0
    }

    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Hands on the events of one input and the share's state after it; returns the input's number.
    @discardableResult
    func emit(_ events: [ShareEvent], share: ShareSnapshot?) -> UInt64 {
        emit(always: true) { buffer in
            buffer.append(contentsOf: events)
            return share
        }
    }

    /// Hands on the events of one input, which `produce` appends straight to the buffer (no copy of
    /// each event), and the share's state after them, which it returns. It runs under the channel's
    /// lock, so it must be short and must not use the channel. An input that makes no event counts
    /// only when `always`. Returns the input's number (0 for none).
    @discardableResult
    func emit(always: Bool = false, _ produce: (inout [ShareEvent]) -> ShareSnapshot?) -> UInt64 {
        // The batch for a waiting consumer is made inside the lock but stays out of its result: the
        // common case (nobody waiting) then moves no batch-sized value out of the lock.
        var handoff: ShareBatch?
        let (consumer, number) = state.withLock { state -> (CheckedContinuation<ShareBatch?, Never>?, UInt64) in
            let before = state.buffer.count
            let share = produce(&state.buffer)
            guard always || state.buffer.count > before else { return (nil, 0) }
            state.emitted += 1
            guard !state.finished else {
                state.buffer.removeSubrange(before...)
                return (nil, state.emitted)
            }
            state.share = consume share
            if let consumer = state.consumer {
                // A waiting consumer has taken everything before: the buffer holds this input only.
                state.consumer = nil
                handoff = ShareBatch(events: state.buffer, share: state.share, through: state.emitted, fixes: state.fixes)
                state.buffer.removeAll(keepingCapacity: true)
                state.fixes.removeAll(keepingCapacity: true)
                return (consumer, state.emitted)
            }
            state.pending = true
            return (nil, state.emitted)
        }
        if let consumer { consumer.resume(returning: handoff.take()) }
        return number
    }

    /// Keeps an accepted fix for the next batch. Once `trackBatchLimit` are waiting, they make a
    /// batch of their own (no events), so that memory stays bounded while the throttle drops fixes.
    func record(_ fix: TrackedFix) {
        let (consumer, batch) = state.withLock { state -> (CheckedContinuation<ShareBatch?, Never>?, ShareBatch?) in
            guard !state.finished else { return (nil, nil) }
            state.fixes.append(fix)
            guard state.fixes.count >= Self.trackBatchLimit else { return (nil, nil) }
            if let consumer = state.consumer {
                state.consumer = nil
                defer { state.fixes.removeAll(keepingCapacity: true) }
                return (consumer, ShareBatch(events: [], share: state.share, through: state.emitted, fixes: state.fixes))
            }
            state.pending = true
            return (nil, nil)
        }
        if let consumer { consumer.resume(returning: batch) }
    }

    /// How many accepted fixes wait at most for a batch with events.
    static let trackBatchLimit = 64

    func finish() {
        let (consumer, batch) = state.withLock { state -> (CheckedContinuation<ShareBatch?, Never>?, ShareBatch?) in
            state.finished = true
            guard let consumer = state.consumer else {
                // Fixes still waiting go out with the consumer's next take.
                if !state.fixes.isEmpty { state.pending = true }
                return (nil, nil)
            }
            state.consumer = nil
            guard !state.fixes.isEmpty else { return (consumer, nil) }
            defer { state.fixes.removeAll() }
            return (consumer, ShareBatch(events: [], share: state.share, through: state.emitted, fixes: state.fixes))
        }
        consumer?.resume(returning: batch)
    }

    func takeAll(isolation actor: isolated (any Actor)? = #isolation) async -> ShareBatch? {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<ShareBatch?, Never>) in
                let (result, producers) = state.withLock { state -> (ShareBatch??, [CheckedContinuation<Void, Never>]) in
                    if state.pending {
                        let taken = ShareBatch(events: state.buffer, share: state.share, through: state.emitted,
                                               fixes: state.fixes)
                        state.buffer.removeAll(keepingCapacity: true)
                        state.fixes.removeAll(keepingCapacity: true)
                        state.pending = false
                        let producers = Array(state.producers.values)
                        state.producers.removeAll()
                        return (.some(taken), producers)
                    }
                    if state.finished || Task.isCancelled { return (.some(nil), []) }
                    state.consumer = continuation
                    return (nil, [])
                }
                for producer in producers { producer.resume() }
                if let result { continuation.resume(returning: result) }
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(returning: nil)
        }
    }

    /// Whether the consumer has fewer than `capacity` events to take (or the channel is finished):
    /// checked without suspending, so that the pump's common case costs no task switch.
    var hasRoom: Bool {
        state.withLock { $0.buffer.count < capacity || $0.finished }
    }

    /// Suspends while the consumer has `capacity` or more events to take.
    func waitForRoom(isolation actor: isolated (any Actor)? = #isolation) async {
        // The common case, once per fix: room, so no continuation and no cancellation handler.
        let producerID = state.withLock { state -> UInt64? in
            guard state.buffer.count >= capacity, !state.finished else { return nil }
            state.nextProducerID += 1
            return state.nextProducerID
        }
        guard let id = producerID else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<Void, Never>) in
                let mustWait = state.withLock { state -> Bool in
                    guard state.buffer.count >= capacity, !state.finished, !Task.isCancelled else { return false }
                    state.producers[id] = continuation
                    return true
                }
                if !mustWait { continuation.resume() }
            }
        } onCancel: {
            let producer = state.withLock { $0.producers.removeValue(forKey: id) }
            producer?.resume()
        }
    }
}
