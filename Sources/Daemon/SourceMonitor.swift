import Control
import LiveLocation
import Locking
import SourceKinds

/// What the daemon knows about its source, for `status`: its state, its newest fix and when that
/// arrived. Written by the source pump, read by the control server.
package final class SourceMonitor: SourceObserver {
    /// A fix older than this (by arrival) no longer counts as having a fix.
    package static let fixFreshness: Duration = .seconds(10)

    private struct State {
        var state = SourceState.connecting
        var lastFix: Fix?
        var lastFixArrival: ContinuousClock.Instant?
        var fixesReceived = 0
        var lastError: String?
        var detail: String?
    }

    package let kind: String
    private let state = Locked(State())

    package init(kind: String) {
        self.kind = kind
    }

    package func record(_ fix: Fix) {
        let now = ContinuousClock.now
        state.withLock {
            $0.lastFix = fix
            $0.lastFixArrival = now
            $0.fixesReceived += 1
        }
    }

    /// `detail` says more where the source can (a serial device's rate, `open at 9600 baud
    /// (detected)`) and replaces the last one.
    package func setState(_ newState: SourceState, error: String? = nil, detail: String? = nil) {
        state.withLock {
            $0.state = newState
            if let error { $0.lastError = error }
            $0.detail = detail
        }
    }

    /// How long ago the newest fix arrived; nil before the first.
    package var lastFixAge: Duration? {
        let now = ContinuousClock.now
        return state.withLock { $0.lastFixArrival.map { now - $0 } }
    }

    package func observe(_ state: SourceState, error: String?, detail: String?) {
        setState(state, error: error, detail: detail)
    }

    package var status: SourceStatus {
        let now = ContinuousClock.now
        return state.withLock { state in
            let age = state.lastFixArrival.map { now - $0 }
            return SourceStatus(
                kind: kind, state: state.state, fix: age.map { $0 < Self.fixFreshness } ?? false,
                lastFixTime: state.lastFix?.time.iso8601,
                lastFixAgeSeconds: age.map { Double($0.wholeMilliseconds) / 1000 },
                fixesReceived: state.fixesReceived, lastError: state.lastError, detail: state.detail)
        }
    }
}
