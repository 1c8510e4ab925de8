import Control
import LiveLocation

/// Who hears of a source's states and fixes (livelocd's `SourceMonitor`, for `status`).
package protocol SourceObserver: Sendable {
    /// The source's state changed; `error` says why it is not connected, `detail` says more
    /// where the source can (a serial device's rate).
    func observe(_ state: SourceState, error: String?, detail: String?)
    /// A fix on its way to the broadcaster.
    func record(_ fix: Fix)
}

extension SourceObserver {
    package func setState(_ state: SourceState, error: String? = nil, detail: String? = nil) {
        observe(state, error: error, detail: detail)
    }
}

/// A source whose fixes are told to an observer on their way to the broadcaster.
package struct ObservedSource<Base: LocationSource>: LocationSource {
    let base: Base
    let observer: any SourceObserver

    package init(_ base: Base, observer: any SourceObserver) {
        self.base = base
        self.observer = observer
    }

    package func fixes() -> AsyncMapSequence<Base.Fixes, Fix> {
        let observer = self.observer
        return base.fixes().map { @Sendable fix in
            observer.record(fix)
            return fix
        }
    }
}
