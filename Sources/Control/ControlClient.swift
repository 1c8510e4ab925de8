import SystemIO

/// The client side of the control protocol, for `liveloc start|stop|status`: one request, one
/// reply, the whole call bounded by one deadline (connecting included).
package enum ControlClient {
    /// How long a whole call may take by default: connect, send, and read the reply.
    package static let defaultTimeout: Duration = .seconds(10)

    /// Sends `request` to the daemon at `socketPath` and returns its reply (which may be a failure
    /// reply such as `busy` or `forbidden`).
    /// - Throws: `ControlClientError` when the daemon cannot be reached, does not answer within
    ///   `timeout`, or answers with something that is not a reply.
    package static func send(_ request: ControlRequest, socketPath: String,
                             timeout: Duration = defaultTimeout) throws(ControlClientError) -> ControlResponse {
        let deadline = ContinuousClock.now + timeout
        let socket: UnixSocket
        do { socket = try UnixSocket.connect(path: socketPath, deadline: deadline) } catch {
            switch error.errno {
            case .noSuchFileOrDirectory, .connectionRefused: throw .notRunning(error)
            case .permissionDenied, .notPermitted: throw .notAllowed(error)
            case .timedOut: throw .noAnswer(path: socketPath, timeout: timeout, stage: .connecting)
            default: throw .failed(error)
            }
        }
        defer { socket.close() }
        try write(request.line, to: socket, deadline: deadline, timeout: timeout)
        return try readReply(from: socket, deadline: deadline, timeout: timeout)
    }

    private static func write(_ bytes: [UInt8], to socket: UnixSocket, deadline: ContinuousClock.Instant,
                              timeout: Duration) throws(ControlClientError) {
        var offset = 0
        while offset < bytes.count {
            let written: Int
            let ready: Bool
            do throws(SystemError) {
                written = try socket.send(bytes[offset...])
                ready = written > 0 ? true : try socket.descriptor.poll(for: .writable, until: deadline)
            } catch {
                // The daemon may refuse (busy) and close before reading: its reply is still to be read.
                if error.errno == .brokenPipe || error.errno == .connectionReset { return }
                throw .failed(error)
            }
            guard ready else { throw .noAnswer(path: socket.path, timeout: timeout, stage: .sending) }
            offset += written
        }
    }

    private static func readReply(from socket: UnixSocket, deadline: ContinuousClock.Instant,
                                  timeout: Duration) throws(ControlClientError) -> ControlResponse {
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !reply.contains(UInt8(ascii: "\n")) {
            let count: Int?
            do throws(SystemError) {
                count = try socket.receive(into: &chunk)
            } catch {
                if error.errno == .connectionReset { break }
                throw .failed(error)
            }
            guard let count else {
                let ready: Bool
                do { ready = try socket.descriptor.poll(for: .readable, until: deadline) } catch { throw .failed(error) }
                guard ready else { throw .noAnswer(path: socket.path, timeout: timeout, stage: .waitingForReply) }
                continue
            }
            if count == 0 { break }
            reply.append(contentsOf: chunk[..<count])
            guard reply.count < 1 << 20 else { throw .badReply(path: socket.path, reason: "a reply line over 1 MiB") }
        }
        guard let end = reply.firstIndex(of: UInt8(ascii: "\n")) else {
            throw .badReply(path: socket.path, reason: reply.isEmpty ? "the connection was closed without a reply" : "an unfinished reply line")
        }
        guard let response = ControlResponse(line: Array(reply[..<end])) else {
            throw .badReply(path: socket.path, reason: "not a reply of control protocol version \(ControlProtocol.version)")
        }
        return response
    }
}
