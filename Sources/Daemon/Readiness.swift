@preconcurrency import Dispatch
import Synchronization
import SystemIO

/// What to wait for on a non-blocking descriptor.
package enum Readiness: Sendable {
    case readable
    case writable
}

extension FileDescriptor {
    /// Suspends, without holding a thread, until the descriptor is readable or writable, or until
    /// `timeout` has passed. Returns false on timeout. Throws `CancellationError` when cancelled.
    ///
    /// The readiness source is torn down before this returns, so the descriptor may be closed then.
    package func wait(until readiness: Readiness, timeout: Duration? = nil) async throws -> Bool {
        let queue = DispatchQueue.global()
        let source: any DispatchSourceProtocol = switch readiness {
        case .readable: DispatchSource.makeReadSource(fileDescriptor: rawValue, queue: queue)
        case .writable: DispatchSource.makeWriteSource(fileDescriptor: rawValue, queue: queue)
        }
        let outcome = WaitOutcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                source.setEventHandler { outcome.settle(.ready); source.cancel() }
                // Runs once, after the source is unregistered: only then does the caller go on.
                source.setCancelHandler {
                    switch outcome.value {
                    case .ready: continuation.resume(returning: true)
                    case .timedOut: continuation.resume(returning: false)
                    case .cancelled, nil: continuation.resume(throwing: CancellationError())
                    }
                }
                if let timeout {
                    let nanoseconds = max(0, Int(timeout.components.seconds) * 1_000_000_000
                        + Int(timeout.components.attoseconds / 1_000_000_000))
                    queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                        outcome.settle(.timedOut); source.cancel()
                    }
                }
                source.resume()
                if Task.isCancelled { outcome.settle(.cancelled); source.cancel() }
            }
        } onCancel: {
            outcome.settle(.cancelled)
            source.cancel()
        }
    }
}

/// The first of ready, timed out or cancelled; later ones are ignored.
private final class WaitOutcome: Sendable {
    enum Value { case ready, timedOut, cancelled }
    private let state = Mutex<Value?>(nil)

    func settle(_ value: Value) {
        state.withLock { if $0 == nil { $0 = value } }
    }

    var value: Value? { state.withLock { $0 } }
}
