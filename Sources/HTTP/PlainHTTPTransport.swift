import LiveLocation
import SystemIO
import Synchronization

/// The built-in HTTP/1.1 client for http:// URLs: one TCP connection (IPv4 or IPv6), kept open
/// between requests (keep-alive), one request at a time, blocking the client's queue. No libcurl,
/// no TLS library: an http:// destination maps neither.
///
/// A request goes out as one write (head and body together, `HTTPRequestEncoder`); the answer is
/// read by `HTTPResponseParser`. Every wait (connect, send, the answer) is a `poll` of at most
/// `HTTPAbortFlag.checkInterval`, so the whole request is bounded by the deadline and an abort
/// is seen within that interval.
///
/// A kept connection is reused only while the server has not closed it (a zero-timeout poll
/// before each request); if it turns out closed or reset anyway before any byte of the answer
/// (the server dropped the idle connection as the request went out), the request is sent once
/// more on a new connection: at-least-once delivery allows it, and nothing of an answer was seen.
final class PlainHTTPTransport: HTTPTransport {
    private struct Connection {
        var socket: TCPSocket
        var host: String
        var port: Int
    }

    private let maxResponseBytes: Int
    private let userAgent: String
    private let abort: HTTPAbortFlag
    private let timeout: Duration
    private var connection: Connection?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 8)

    /// Connections opened so far (for tests: reuse means one).
    let connectionsOpened = Atomic<Int>(0)

    init(timeout: Duration, maxResponseBytes: Int, userAgent: String, abort: HTTPAbortFlag) {
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
        self.abort = abort
    }

    deinit {
        connection?.socket.close()
        buffer.deallocate()
    }

    func transfer(_ request: HTTPRequest, to url: HTTPURL, deadline: ContinuousClock.Instant) -> Result<HTTPResponse, HTTPFailure> {
        do throws(HTTPTransportError) {
            let bytes: [UInt8]
            do { bytes = try HTTPRequestEncoder.encode(request, to: url, userAgent: userAgent) } catch { throw .invalidRequest(error) }
            var sentBefore = false
            while true {
                let (socket, reused) = try connection(to: url, deadline: deadline)
                var parser = HTTPResponseParser(maxBodyBytes: maxResponseBytes)
                do throws(HTTPTransportError) {
                    try exchange(bytes, on: socket, parser: &parser, deadline: deadline)
                } catch {
                    disconnect()
                    // Reused, nothing of an answer read: the server had dropped the connection.
                    if reused, !sentBefore, parser.bytesRead == 0, error.isConnectionLoss {
                        sentBefore = true
                        continue
                    }
                    throw error
                }
                if !parser.keepsConnection { disconnect() }
                return .success(parser.response(now: WallClock().now))
            }
        } catch {
            return .failure(error.failure)
        }
    }

    // MARK: Connection

    /// The kept connection when it is to the same host and port and the server has not closed it;
    /// else a new one.
    private func connection(to url: HTTPURL, deadline: ContinuousClock.Instant) throws(HTTPTransportError) -> (TCPSocket, reused: Bool) {
        if let kept = connection {
            if kept.host == url.host, kept.port == url.port, isOpen(kept.socket) { return (kept.socket, true) }
            disconnect()
        }
        let socket = try connect(host: url.hostForLookup, port: url.port, deadline: deadline)
        connection = Connection(socket: socket, host: url.host, port: url.port)
        connectionsOpened.add(1, ordering: .relaxed)
        return (socket, false)
    }

    /// An idle connection has nothing to read: readable means the server closed it (or sent bytes
    /// that answer no request), either way it cannot carry the next one.
    private func isOpen(_ socket: TCPSocket) -> Bool {
        guard let events = try? pollReadable([socket.descriptor], timeout: .zero) else { return false }
        return events.first?.isEmpty ?? false
    }

    private func disconnect() {
        connection?.socket.close()
        connection = nil
    }

    /// Tries each address of `host` in the resolver's order until one connects.
    private func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(HTTPTransportError) -> TCPSocket {
        let addresses: [SocketAddress]
        do { addresses = try SocketAddress.resolve(host: host, port: port) } catch { throw .lookup(error) }
        var firstError: HTTPTransportError?
        for address in addresses {
            do throws(HTTPTransportError) {
                let (socket, connected) = try system { () throws(SystemError) in try TCPSocket.beginConnect(to: address) }
                if connected { return socket }
                do throws(HTTPTransportError) {
                    try wait(for: .writable, on: socket, until: deadline, phase: .connecting)
                    try system { () throws(SystemError) in try socket.finishConnect() }
                    return socket
                } catch {
                    socket.close()
                    throw error
                }
            } catch {
                if case .aborted = error { throw error }
                if case .timedOut = error { throw error }
                firstError = firstError ?? error
            }
        }
        throw firstError ?? .lookup(AddressLookupError(host: host, reason: "no address"))
    }

    // MARK: One request

    private func exchange(_ request: [UInt8], on socket: TCPSocket, parser: inout HTTPResponseParser,
                          deadline: ContinuousClock.Instant) throws(HTTPTransportError) {
        var offset = 0
        while offset < request.count {
            let written = try system { () throws(SystemError) in
                try request.withUnsafeBytes { bytes in Result { () throws(SystemError) in try socket.send(UnsafeRawBufferPointer(rebasing: bytes[offset...])) } }.get()
            }
            offset += written
            if written == 0 { try wait(for: .writable, on: socket, until: deadline, phase: .sending) }
        }
        while !parser.isComplete {
            try wait(for: .readable, on: socket, until: deadline, phase: .receiving)
            guard let count = try system({ () throws(SystemError) in try socket.receive(into: buffer) }) else { continue }
            if count == 0 {
                guard parser.bytesRead > 0 else { throw .emptyReply(peer: socket.peer.description) }
                do { try parser.finish() } catch { throw .malformedResponse(error, peer: socket.peer.description) }
                disconnect()
                return
            }
            let consumed: Int
            do { consumed = try parser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<count])) } catch {
                throw .malformedResponse(error, peer: socket.peer.description)
            }
            // Bytes after the answer answer no request: the connection is not reused.
            if consumed < count { disconnect() }
        }
    }

    /// Waits until `socket` is ready, looking at the abort flag between polls.
    private func wait(for readiness: Readiness, on socket: TCPSocket, until deadline: ContinuousClock.Instant,
                      phase: HTTPTransportError.Phase) throws(HTTPTransportError) {
        while true {
            if abort.isSet { throw .aborted }
            let now = ContinuousClock.now
            guard now < deadline else { throw .timedOut(phase, after: timeout, peer: socket.peer.description) }
            let ready = try system { () throws(SystemError) in
                try socket.descriptor.poll(for: readiness, until: min(deadline, now + HTTPAbortFlag.checkInterval))
            }
            if ready { return }
        }
    }

    private func system<T>(_ body: () throws(SystemError) -> T) throws(HTTPTransportError) -> T {
        do { return try body() } catch { throw .system(error) }
    }
}
