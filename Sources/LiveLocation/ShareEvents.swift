import Synchronization

/// A broadcaster's events, in order: an async sequence with one consumer.
///
/// Unlike an `AsyncStream`, it pushes back: a source pump waits while `capacity` events are
/// waiting to be consumed, so a log replayed as fast as possible runs in flat memory. Events are
/// never dropped; the broadcaster's own emissions (stop, expiry) never wait.
public struct ShareEvents: AsyncSequence, Sendable {
    let channel: EventChannel

    public func makeAsyncIterator() -> Iterator {
        Iterator(channel: channel)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let channel: EventChannel
        private var batch: [ShareEvent] = []
        private var index = 0

        init(channel: EventChannel) {
            self.channel = channel
        }

        /// The next event; nil once the broadcaster finished and every event was consumed, or when
        /// the consuming task is cancelled.
        public mutating func next() async -> ShareEvent? {
            await next(isolation: nil)
        }

        /// `next()`, run on the caller's actor (no task switch).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> ShareEvent? {
            if index == batch.count {
                guard let taken = await channel.takeAll() else { return nil }
                batch = taken
                index = 0
            }
            defer { index += 1 }
            return batch[index]
        }

        /// Every event available now without waiting (at least one; waits only when none is):
        /// a consumer that writes them at once makes one write for a burst of events. Nil as `next()`.
        public mutating func nextBatch(isolation actor: isolated (any Actor)? = #isolation) async -> ArraySlice<ShareEvent>? {
            if index == batch.count {
                guard let taken = await channel.takeAll() else { return nil }
                batch = taken
                index = 0
            }
            defer { index = batch.count }
            return batch[index...]
        }
    }
}

/// The buffer between the broadcaster and its consumer. The consumer takes everything buffered at
/// once (one lock per batch, not per event).
final class EventChannel: Sendable {
    private struct State {
        var buffer: [ShareEvent] = []
        var finished = false
        var consumer: CheckedContinuation<[ShareEvent]?, Never>?
        var producers: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextProducerID: UInt64 = 0
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    func emit(_ events: [ShareEvent]) {
        guard !events.isEmpty else { return }
        let consumer = state.withLock { state -> CheckedContinuation<[ShareEvent]?, Never>? in
            guard !state.finished else { return nil }
            if let consumer = state.consumer {
                state.consumer = nil
                return consumer
            }
            state.buffer.append(contentsOf: events)
            return nil
        }
        consumer?.resume(returning: events)
    }

    func finish() {
        let consumer = state.withLock { state -> CheckedContinuation<[ShareEvent]?, Never>? in
            state.finished = true
            defer { state.consumer = nil }
            return state.consumer
        }
        consumer?.resume(returning: nil)
    }

    func takeAll(isolation actor: isolated (any Actor)? = #isolation) async -> [ShareEvent]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { (continuation: CheckedContinuation<[ShareEvent]?, Never>) in
                let (result, producers) = state.withLock { state -> ([ShareEvent]??, [CheckedContinuation<Void, Never>]) in
                    if !state.buffer.isEmpty {
                        let taken = state.buffer
                        state.buffer.removeAll(keepingCapacity: true)
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
