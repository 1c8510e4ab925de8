import Synchronization

/// The current state of a live source (gpsd's connection, a serial receiver) and its subscribers:
/// each `subscribe()` stream starts with the current state and then gets every change.
package final class StatePublisher<State: Sendable & Equatable>: Sendable {
    private struct Shared: ~Copyable {
        var state: State
        var subscribers: [Int: AsyncStream<State>.Continuation] = [:]
        var nextID = 0
    }

    private let shared: Mutex<Shared>

    package init(_ initial: State) {
        shared = Mutex(Shared(state: initial))
    }

    package var current: State { shared.withLock { $0.state } }

    /// Sets the state; returns whether it changed (so that the caller logs once per change).
    @discardableResult
    package func set(_ state: State) -> Bool {
        shared.withLock { shared in
            guard shared.state != state else { return false }
            shared.state = state
            for continuation in shared.subscribers.values { continuation.yield(state) }
            return true
        }
    }

    package func subscribe() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .bufferingNewest(16))
        let id = shared.withLock { shared in
            let id = shared.nextID
            shared.nextID += 1
            shared.subscribers[id] = continuation
            continuation.yield(shared.state)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
