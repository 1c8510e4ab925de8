/// A server's answer to one request.
package struct HTTPResponse: Sendable, Equatable {
    /// The HTTP status code.
    package var status: Int
    /// The `Retry-After` header (seconds, or an HTTP date turned into the wait from now), if any
    /// and longer than zero.
    package var retryAfter: Duration?
    /// The body's first bytes, up to the client's `maxResponseBytes`.
    package var body: [UInt8]
    /// True when the body was longer than `maxResponseBytes` and `body` holds only its start.
    package var bodyTruncated: Bool

    package init(status: Int, retryAfter: Duration? = nil, body: [UInt8] = [], bodyTruncated: Bool = false) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
        self.bodyTruncated = bodyTruncated
    }
}

/// Why a request got no complete answer.
package enum HTTPFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Connection refused, timeout, TLS failure, reset, malformed response, … (the built-in
    /// client's text for http://, libcurl's for https://; the request's secrets redacted).
    case transport(String)
    /// The server accepted the request, then closed the connection without a byte of an answer
    /// ("empty reply"; on a kept connection only after the request was sent again on a new one).
    case noResponse(String)
    /// The attempt was abandoned: the waiting task was cancelled, or `abort()` was called.
    case cancelled

    package var description: String {
        switch self {
        case .transport(let message), .noResponse(let message): message
        case .cancelled: "cancelled"
        }
    }
}
