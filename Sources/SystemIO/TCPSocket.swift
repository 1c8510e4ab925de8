#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking TCP connection (IPv4 or IPv6), owned by whoever holds it; close it exactly once.
///
/// Connecting is two steps, so that the caller decides how to wait (and can give up in between):
/// `beginConnect`, then, once the descriptor is writable, `finishConnect`. Every failure is a
/// `SystemError` naming the call and the peer, e.g. `connect 127.0.0.1:9: Connection refused (ECONNREFUSED)`.
package struct TCPSocket: Sendable {
    package let descriptor: FileDescriptor
    /// The address it connects to.
    package let peer: SocketAddress

    /// Opens a non-blocking, close-on-exec socket with `TCP_NODELAY` (a request goes out in one
    /// write; no reason to wait for an acknowledgement before sending it) and starts connecting it
    /// to `address`. `isConnected` is false while the connection is in progress (EINPROGRESS).
    /// - Throws: `SystemError` (`socket`, `connect ADDRESS`).
    package static func beginConnect(to address: SocketAddress) throws(SystemError) -> (socket: TCPSocket, isConnected: Bool) {
        let target = address.description
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", target: target) }
        let socket = TCPSocket(descriptor: FileDescriptor(rawValue: fd), peer: address)
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        let result = address.withSocketAddress { Glibc.connect(fd, $0, $1) }
        if result == 0 { return (socket, true) }
        // EINTR: the connection goes on asynchronously, as with EINPROGRESS.
        if errno == EINPROGRESS || errno == EINTR { return (socket, false) }
        let error = SystemError("connect", target: target)
        socket.close()
        throw error
    }

    /// After `beginConnect` returned `isConnected == false` and the descriptor became writable:
    /// whether the connection was made.
    /// - Throws: `SystemError` (`connect ADDRESS: Connection refused (ECONNREFUSED)`…).
    package func finishConnect() throws(SystemError) {
        try descriptor.finishConnect(target: peer.description)
    }

    /// Writes what the socket takes of `bytes` now, never raising SIGPIPE: the count, 0 when it would block.
    /// - Throws: `SystemError` (`send ADDRESS: Broken pipe (EPIPE)`, ECONNRESET…).
    package func send(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int {
        try descriptor.sendNow(bytes, target: peer.description)
    }

    /// Reads what is available now: the count, 0 at end of stream, nil when nothing is available yet.
    /// - Throws: `SystemError` (`recv ADDRESS: Connection reset by peer (ECONNRESET)`…).
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try descriptor.receiveNow(into: buffer, target: peer.description)
    }

    package func close() { descriptor.close() }
}
