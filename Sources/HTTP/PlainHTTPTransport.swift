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
    private let lookup: HostLookup
    /// The proxy from the environment (`http_proxy`, `no_proxy`), read when the client was made.
    private let proxy: HTTPProxy?
    private var connection: Connection?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 8)

    /// Connections opened so far (for tests: reuse means one).
    let connectionsOpened = Atomic<Int>(0)

    /// How long a connection attempt has before the next address is tried beside it (Happy
    /// Eyeballs, RFC 8305's "Connection Attempt Delay").
    static let connectionAttemptDelay = Duration.milliseconds(250)

    init(timeout: Duration, maxResponseBytes: Int, userAgent: String, abort: HTTPAbortFlag,
         lookup: HostLookup = .system, proxy: HTTPProxy? = nil) {
        self.timeout = timeout
        self.lookup = lookup
        self.proxy = proxy
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
            let proxy = self.proxy.flatMap { $0.applies(to: url.hostForLookup) ? $0 : nil }
            do {
                bytes = try HTTPRequestEncoder.encode(request, to: url, userAgent: userAgent, throughProxy: proxy != nil,
                                                      proxyAuthorization: proxy?.authorizationHeader)
            } catch {
                throw .invalidRequest(error)
            }
            var sentBefore = false
            while true {
                let (socket, reused) = try connection(to: proxy.map { ($0.host, $0.port) } ?? (url.hostForLookup, url.port), deadline: deadline)
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

    /// The kept connection when it is to the same host (the server's, or the proxy's) and port and
    /// the server has not closed it; else a new one.
    private func connection(to peer: (host: String, port: Int), deadline: ContinuousClock.Instant) throws(HTTPTransportError) -> (TCPSocket, reused: Bool) {
        if let kept = connection {
            if kept.host == peer.host, kept.port == peer.port, isOpen(kept.socket) { return (kept.socket, true) }
            disconnect()
        }
        let socket = try connect(host: peer.host, port: peer.port, deadline: deadline)
        connection = Connection(socket: socket, host: peer.host, port: peer.port)
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

    /// Connects to one of `host`'s addresses, Happy Eyeballs style (RFC 8305): the addresses in the
    /// resolver's order with the families interleaved; an attempt that has not connected within
    /// `connectionAttemptDelay` gets the next address started beside it (and a failed one at once),
    /// the first to connect wins and the others are closed. A host whose first address is a black
    /// hole (a broken IPv6 route) is reached by the next within a quarter of a second.
    private func connect(host: String, port: Int, deadline: ContinuousClock.Instant) throws(HTTPTransportError) -> TCPSocket {
        let addresses = Self.interleavingFamilies(try lookup.addresses(of: host, port: port, deadline: deadline, timeout: timeout, abort: abort))
        var attempts: [TCPSocket] = []
        defer { for attempt in attempts { attempt.close() } }
        var next = 0
        var nextAttemptAt = ContinuousClock.now
        var firstError: HTTPTransportError?
        while true {
            if abort.isSet { throw .aborted }
            let now = ContinuousClock.now
            guard now < deadline else {
                throw .timedOut(.connecting, after: timeout, peer: (attempts.first?.peer ?? addresses[0]).description)
            }
            if next < addresses.count, attempts.isEmpty || now >= nextAttemptAt {
                let address = addresses[next]
                next += 1
                nextAttemptAt = now + Self.connectionAttemptDelay
                do {
                    let (socket, connected) = try TCPSocket.beginConnect(to: address)
                    if connected { return socket }
                    attempts.append(socket)
                } catch {
                    firstError = firstError ?? .system(error)
                    nextAttemptAt = now
                }
                continue
            }
            guard !attempts.isEmpty else {
                throw firstError ?? .lookup(AddressLookupError(host: host, reason: "no address"))
            }
            var waitUntil = min(deadline, now + HTTPAbortFlag.checkInterval)
            if next < addresses.count { waitUntil = min(waitUntil, nextAttemptAt) }
            let events = try system { () throws(SystemError) in try pollWritable(attempts.map(\.descriptor), timeout: waitUntil - now) }
            for index in events.indices.reversed() where !events[index].isEmpty {
                let attempt = attempts.remove(at: index)
                do {
                    try attempt.finishConnect()
                    return attempt
                } catch {
                    attempt.close()
                    firstError = firstError ?? .system(error)
                    nextAttemptAt = ContinuousClock.now
                }
            }
        }
    }

    /// The addresses with the two families alternating, starting with the resolver's first
    /// (RFC 8305 section 4): a run of broken addresses of one family delays the other by one attempt.
    static func interleavingFamilies(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let first = addresses.first else { return [] }
        var preferred = addresses.filter { $0.family == first.family }[...]
        var other = addresses.filter { $0.family != first.family }[...]
        var result: [SocketAddress] = []
        while !preferred.isEmpty || !other.isEmpty {
            if let address = preferred.popFirst() { result.append(address) }
            if let address = other.popFirst() { result.append(address) }
        }
        return result
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
