import Locking

/// The promise of one `Destination.send`'s outcome: fulfilled once, from any thread (an HTTP
/// queue, libmosquitto's callback thread); awaited by the runner.
package final class DeliveryReceipt: Sendable {
    private struct State {
        var outcome: DeliveryOutcome?
        var waiter: CheckedContinuation<DeliveryOutcome?, Never>?
        var abandoned = false
        var onAbandon: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    package init() {}

    /// A receipt already fulfilled with `outcome`.
    package convenience init(_ outcome: DeliveryOutcome) {
        self.init()
        fulfil(outcome)
    }

    /// Reports the outcome; later calls are ignored.
    package func fulfil(_ outcome: DeliveryOutcome) {
        let waiter = state.withLock { state -> CheckedContinuation<DeliveryOutcome?, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// The outcome once it is known; nil when the waiting task is cancelled first.
    ///
    /// It runs in the caller's isolation (the runner's), without a hop: when the runner runs on
    /// the destination's thread, a hop would queue the wait behind the send it waits for, and a
    /// cancellation would find no waiter to abandon until the send had ended.
    package func outcome(isolation: isolated (any Actor)? = #isolation) async -> DeliveryOutcome? {
        await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<DeliveryOutcome?, Never>) in
                let ready = state.withLock { state -> DeliveryOutcome?? in
                    if let outcome = state.outcome { return .some(outcome) }
                    if state.abandoned || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let (waiter, action) = state.withLock { state in
                state.abandoned = true
                defer { state.waiter = nil; state.onAbandon = nil }
                return (state.waiter, state.outcome == nil ? state.onAbandon : nil)
            }
            waiter?.resume(returning: nil)
            action?()
        }
    }

    /// `action` is called once, on the cancelling thread, if the waiting task is cancelled before
    /// the outcome is known (the runner is stopping): a destination abandons the attempt under way
    /// there (an HTTP client's `abort()`) instead of letting it run to its timeout.
    package func onAbandon(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard state.outcome == nil else { return false }
            if state.abandoned { return true }
            state.onAbandon = action
            return false
        }
        if now { action() }
    }
}
