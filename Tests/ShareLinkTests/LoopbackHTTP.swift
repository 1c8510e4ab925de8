import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.0 client for loopback tests: one request, the whole answer until the server
/// closes (HTTP/1.0: no chunking, so an SSE stream that ends reads as its frames).
enum LoopbackHTTP {
    struct Answer {
        var status: Int
        var head: String
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? {
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1).drop(while: { $0 == " " })) }
        }
    }

    /// One request; the answer read until the server closes or `timeoutSeconds` pass.
    static func request(port: UInt16, _ path: String, method: String = "GET", headers: [String] = [], body: [UInt8] = [], claimedLength: Int? = nil,
                        timeoutSeconds: Int = 10) throws -> Answer {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var request = "\(method) \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        for header in headers { request += header + "\r\n" }
        if method == "POST" { request += "Content-Length: \(claimedLength ?? body.count)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        // At most `timeoutSeconds` in all: a live stream never closes.
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while ContinuousClock.now < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        guard let split = answer.indices.first(where: { answer[$0...].starts(with: Array("\r\n\r\n".utf8)) }) else {
            return Answer(status: 0, head: String(decoding: answer, as: UTF8.self), body: [])
        }
        let head = String(decoding: answer[..<split], as: UTF8.self)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return Answer(status: status, head: head, body: Array(answer[(split + 4)...]))
    }
}

/// One Server-Sent Event.
struct SSEEvent: Equatable {
    var id: UInt64
    var event: String
    var data: String

    static func parse(_ text: String) -> [SSEEvent] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var id: UInt64?, event = "message", data = ""
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = UInt64(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            return id.map { SSEEvent(id: $0, event: event, data: data) }
        }
    }
}
