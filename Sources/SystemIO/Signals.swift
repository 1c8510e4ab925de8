#if canImport(Glibc)
import Glibc
#endif
@preconcurrency import Dispatch

/// Delivers the given signals as an async stream instead of running handlers; the default action
/// of each signal is disabled while the stream is being consumed.
public func signalStream(_ signals: [Int32]) -> AsyncStream<Int32> {
    // A process inherits its parent's signal mask: started from a thread that blocks these signals
    // (as libdispatch's worker threads do), it would never see them. Unblock them on this thread,
    // so that the kernel has a thread to deliver them to.
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    for number in signals { sigaddset(&unblocked, number) }
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    return AsyncStream { continuation in
        let sources = signals.map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        let owned = SignalSources(sources)
        continuation.onTermination = { _ in owned.cancel() }
    }
}

/// The dispatch sources behind a signal stream; cancelled together when the stream ends.
private final class SignalSources: Sendable {
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]  // only read after init

    init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }

    func cancel() { for source in sources { source.cancel() } }
}
