import Locking

/// The current state of a live source (gpsd's connection, a serial receiver) and its subscribers:
/// each `subscribe()` stream starts with the current state and then gets every change.
package final class StatePublisher<State: Sendable & Equatable>: Sendable {
    private struct Shared: ~Copyable {
        var state: State
        var subscribers: [AsyncStream<State>.Continuation] = []
    }

    private let shared: Locked<Shared>

    package init(_ initial: State) {
        shared = Locked(Shared(state: initial))
    }

    package var current: State { shared.withLock { $0.state } }

    /// Sets the state; returns whether it changed (so that the caller logs once per change).
    @discardableResult
    package func set(_ state: State) -> Bool {
        shared.withLock { shared in
            guard shared.state != state else { return false }
            shared.state = state
            // A subscriber whose stream has ended is dropped here rather than by an onTermination
            // handler: Swift runs that handler while it holds the subscriber task's status lock, and
            // `yield` below (under this lock) needs that task's lock to resume it; the two orders
            // deadlocked when the task was cancelled during a change (StatePublisherTests).
            shared.subscribers.removeAll { continuation in
                if case .terminated = continuation.yield(state) { return true }
                return false
            }
            return true
        }
    }

    package func subscribe() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream.makeStream(of: State.self, bufferingPolicy: .bufferingNewest(16))
        shared.withLock { shared in
            shared.subscribers.append(continuation)
            continuation.yield(shared.state)
        }
        return stream
    }
}
