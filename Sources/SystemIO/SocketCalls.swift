#if canImport(Glibc)
import Glibc
#endif

/// The stream-socket calls that Unix and TCP sockets share: one copy each, non-blocking, each
/// failure a `SystemError` naming the call and the socket's target (a path, `host:port`). The
/// target's text is made only for an error (a TCP peer's is formatted from its address: not per call).
extension FileDescriptor {
    /// Writes what the socket takes of `bytes` now (`MSG_DONTWAIT`; `MSG_NOSIGNAL`: a peer that has
    /// gone is `EPIPE`, never SIGPIPE): the count written, 0 when it would block.
    package func sendNow(_ bytes: UnsafeRawBufferPointer, target: @autoclosure () -> String?) throws(SystemError) -> Int {
        let count = retryingOnInterrupt {
            Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            // errno before the target's text is made (formatting may call into libc).
            let error = Errno.current
            throw SystemError("send", target: target(), errno: error)
        }
        return count
    }

    /// Reads what is available now into `buffer` (`MSG_DONTWAIT`): the count, 0 at end of stream,
    /// nil when nothing is available yet.
    package func receiveNow(into buffer: UnsafeMutableRawBufferPointer, target: @autoclosure () -> String?) throws(SystemError) -> Int? {
        let count = retryingOnInterrupt { recv(rawValue, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT)) }
        if count < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            // errno before the target's text is made (formatting may call into libc).
            let error = Errno.current
            throw SystemError("recv", target: target(), errno: error)
        }
        return count
    }

    /// The outcome of a non-blocking `connect` once the socket is writable (`SO_ERROR`).
    /// - Throws: `SystemError` naming `connect` and `target` with the connection's errno
    ///   (ECONNREFUSED, ENETUNREACH, …).
    package func finishConnect(target: String?) throws(SystemError) {
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(rawValue, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else {
            throw SystemError("getsockopt SO_ERROR", target: target)
        }
        guard failure == 0 else { throw SystemError("connect", target: target, errno: Errno(rawValue: failure)) }
    }
}
