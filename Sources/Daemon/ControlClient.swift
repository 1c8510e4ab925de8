#if canImport(Glibc)
import Glibc
#endif
import JSONCoding
import SystemIO

/// The client side of the control protocol, for `liveloc start|stop|status`: one request, one reply.
package enum ControlClient {
    /// Sends `request` to the daemon at `socketPath` and returns its reply (which may be a failure).
    /// - Throws: `ControlClientError` when the daemon cannot be reached or does not answer in time.
    package static func send(_ request: ControlRequest, socketPath: String,
                             timeout: Duration = .seconds(10)) throws(ControlClientError) -> ControlResponse {
        let socket: UnixSocket
        do { socket = try UnixSocket.connect(path: socketPath) } catch {
            switch error.errno {
            case ENOENT, ECONNREFUSED: throw .notRunning(error)
            case EACCES, EPERM: throw .notAllowed(error)
            default: throw .failed(error)
            }
        }
        defer { socket.close() }
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(socket.descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket.descriptor.rawValue, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var line = (try? JSON.encode(request)) ?? []
        line.append(UInt8(ascii: "\n"))
        do {
            try line.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = try socket.send(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                    guard written > 0 else { throw SystemError("send", target: socketPath, errno: ETIMEDOUT) }
                    offset += written
                }
            }
            var reply: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while !reply.contains(UInt8(ascii: "\n")) {
                let count = try chunk.withUnsafeMutableBytes { buffer in try socket.receive(into: buffer) }
                guard let count else { throw SystemError("recv", target: socketPath, errno: ETIMEDOUT) }
                if count == 0 { break }
                reply.append(contentsOf: chunk[..<count])
                guard reply.count < 1 << 20 else { throw ControlClientError.badReply(socketPath) }
            }
            guard let end = reply.firstIndex(of: UInt8(ascii: "\n")), let response = ControlResponse(line: Array(reply[..<end])) else {
                throw ControlClientError.badReply(socketPath)
            }
            return response
        } catch let error as ControlClientError {
            throw error
        } catch let error as SystemError {
            throw .failed(error)
        } catch {
            throw .badReply(socketPath)
        }
    }
}

/// Why `liveloc` could not talk to the daemon, as one line.
package enum ControlClientError: Error, CustomStringConvertible {
    case notRunning(SystemError)
    case notAllowed(SystemError)
    case failed(SystemError)
    case badReply(String)

    package var description: String {
        switch self {
        case .notRunning(let error): "livelocd is not running (\(error))"
        case .notAllowed(let error): "not allowed to control livelocd (\(error)); are you in its control group?"
        case .failed(let error): "\(error)"
        case .badReply(let path): "no valid reply from livelocd on \(path)"
        }
    }
}
