#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose only job is to wake a thread that waits for it: in `read` (`waitForByte`) or in
/// `poll` beside other descriptors (`reader`, then `drain`). `wake` writes one byte and never
/// blocks (the writer is non-blocking: a full pipe wakes the reader already). The one wake-up pipe
/// of the package: ThreadExecutor's sleep, the signal handler's (whose byte is the signal's
/// number), StdoutWriter's writer thread, a serial session's cancellation, MQTT's loop thread.
///
/// Its owner closes it (`close`) once nobody waits or wakes any more.
package struct WakeupPipe: Sendable {
    /// The end a thread waits on (`poll` for readable).
    package let reader: FileDescriptor
    /// The end `wake` writes to (non-blocking); a signal handler may write its raw descriptor.
    package let writer: FileDescriptor

    /// - Parameter pollable: a non-blocking reader, for a thread that polls it and then `drain`s it;
    ///   otherwise `waitForByte` blocks until a byte is there.
    /// - Throws: `SystemError` when no pipe can be made.
    package init(pollable: Bool = false) throws(SystemError) {
        (reader, writer) = try FileDescriptor.makePipe(nonBlockingReader: pollable, nonBlockingWriter: true)
    }

    /// Writes `byte` (1: just a wake-up), without blocking; dropped when the pipe is full (whoever
    /// waits is woken by what is there already).
    package func wake(_ byte: UInt8 = 1) {
        var byte = byte
        _ = retryingOnInterrupt { write(writer.rawValue, &byte, 1) }
    }

    /// Waits for one byte (a blocking reader) and returns it; nil when the pipe is closed or fails.
    package func waitForByte() -> UInt8? {
        var byte: UInt8 = 0
        return retryingOnInterrupt { read(reader.rawValue, &byte, 1) } == 1 ? byte : nil
    }

    /// Takes every byte there is (a pollable reader), so that the next `poll` waits again.
    package func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while retryingOnInterrupt({ read(reader.rawValue, &scratch, scratch.count) }) > 0 {}
    }

    /// Waits at most `timeout` (nil: without end) for a wake-up, then drains the pipe (a pollable
    /// reader). Returns whether it was woken.
    @discardableResult
    package func wait(timeout: Duration?) -> Bool {
        let woken = (try? pollReadable([reader], timeout: timeout)).map { !$0[0].isEmpty } ?? false
        drain()
        return woken
    }

    package func close() {
        reader.close()
        writer.close()
    }
}
