import SystemIO

/// Why the built-in transport got no complete answer, as one line naming the peer (never the
/// URL's path or query, where a token may be).
enum HTTPTransportError: Error, CustomStringConvertible {
    /// What was going on when the time ran out.
    enum Phase: String {
        case resolving = "resolving"
        case connecting = "connecting to"
        case sending = "sending the request to"
        case receiving = "waiting for the response from"
    }

    case invalidRequest(HTTPRequestEncoderError)
    case lookup(AddressLookupError)
    /// connect, send, recv or poll failed: `connect 127.0.0.1:9: Connection refused (ECONNREFUSED)`.
    case system(SystemError)
    case timedOut(Phase, after: Duration, peer: String)
    case malformedResponse(HTTPResponseParseError, peer: String)
    /// The connection ended before any byte of a response.
    case emptyReply(peer: String)
    case aborted

    var description: String {
        switch self {
        case .invalidRequest(let error): "\(error)"
        case .lookup(let error): "\(error)"
        case .system(let error): "\(error)"
        case .timedOut(let phase, let after, let peer): "timed out after \(after.shortText) \(phase.rawValue) \(peer)"
        case .malformedResponse(.truncated(let part), let peer): "\(peer) closed the connection in the middle of the response's \(part.rawValue)"
        case .malformedResponse(let error, let peer): "malformed response from \(peer): \(error)"
        case .emptyReply(let peer): "empty reply from \(peer): the connection closed without a response"
        case .aborted: "cancelled"
        }
    }

    /// The connection was gone before the server could answer: what a server that closed an idle
    /// keep-alive connection looks like when a request is sent on it.
    var isConnectionLoss: Bool {
        switch self {
        case .emptyReply: true
        case .system(let error): error.errno == .brokenPipe || error.errno == .connectionReset
        default: false
        }
    }

    var failure: HTTPFailure {
        switch self {
        case .aborted: .cancelled
        case .emptyReply: .noResponse(description)
        default: .transport(description)
        }
    }
}
