#if canImport(Glibc)
import Glibc
#endif

/// The write ends of the pipes the signal handler writes to, by signal number (a handler can only
/// reach globals). Set before the handler is installed, never changed while it can run.
private nonisolated(unsafe) var signalPipeWriters = [Int32](repeating: -1, count: 65)

/// Delivers the given signals as an async stream instead of running their default actions.
///
/// The handler is installed before this returns (sigaction, writing the signal's number to a
/// pipe that a thread of its own reads), so a signal that arrives a microsecond later is seen,
/// never lost and never fatal. When the stream ends, the signals are ignored from then on.
package func signalStream(_ signals: [Int32]) -> AsyncStream<Int32> {
    // A process inherits its parent's signal mask: started from a thread that blocks these signals
    // (as libdispatch's worker threads do), it would never see them. Unblock them on this thread,
    // so that the kernel has a thread to deliver them to.
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    for number in signals { sigaddset(&unblocked, number) }
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    // The handler must never block: a full pipe (a burst of signals nobody reads yet) drops one.
    guard let pipe = try? WakeupPipe() else {
        for number in signals { signal(number, SIG_IGN) }
        return AsyncStream { $0.finish() }
    }
    let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
    for number in signals where (1..<65).contains(number) {
        signalPipeWriters[Int(number)] = pipe.writer.rawValue
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            var byte = UInt8(truncatingIfNeeded: number)
            let saved = errno
            _ = write(signalPipeWriters[Int(number)], &byte, 1)
            errno = saved
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(number, &action, nil)
    }
    do {
        try startDetachedThread(name: "signals") {
            while let byte = pipe.waitForByte() { continuation.yield(Int32(byte)) }
        }
    } catch {
        for number in signals { signal(number, SIG_IGN) }
        continuation.finish()
    }
    continuation.onTermination = { _ in
        for number in signals { signal(number, SIG_IGN) }
    }
    return stream
}
