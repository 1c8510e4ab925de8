import LiveLocation
import Synchronization

/// The current `GPSDConnectionState` of a source and its subscribers: each `states` stream starts
/// with the current state and then gets every change.
final class GPSDStatus: Sendable {
    private struct Shared {
        var state: GPSDConnectionState = .connecting
        var subscribers: [Int: AsyncStream<GPSDConnectionState>.Continuation] = [:]
        var nextID = 0
    }

    private let shared = Mutex(Shared())

    var current: GPSDConnectionState { shared.withLock { $0.state } }

    /// Sets the state; returns whether it changed (so that the caller logs once per change).
    @discardableResult
    func set(_ state: GPSDConnectionState) -> Bool {
        shared.withLock { shared in
            guard shared.state != state else { return false }
            shared.state = state
            for continuation in shared.subscribers.values { continuation.yield(state) }
            return true
        }
    }

    func subscribe() -> AsyncStream<GPSDConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: GPSDConnectionState.self, bufferingPolicy: .bufferingNewest(16))
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
