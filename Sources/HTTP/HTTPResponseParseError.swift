/// Why the bytes a server sent are not an HTTP/1.1 response livelocd can read, as one line.
package enum HTTPResponseParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The first line is not `HTTP/1.x NNN reason`.
    case malformedStatusLine
    /// An HTTP version other than 1.0 or 1.1.
    case unsupportedVersion
    /// A header line without a name, a colon, or with a bare CR or white space before the colon.
    case malformedHeader
    /// The status line and headers (or the trailers) are longer than `limit` bytes.
    case headTooLarge(limit: Int)
    /// More than `limit` header (or trailer) lines.
    case tooManyHeaders(limit: Int)
    /// A `Content-Length` that is not a number, or two that differ.
    case invalidContentLength
    /// A chunk-size line that is not hexadecimal digits (then extensions), or too long.
    case malformedChunkSize
    /// A chunk's data not followed by CRLF.
    case missingChunkEnd
    /// 101 Switching Protocols: livelocd never asks for an upgrade.
    case unexpectedUpgrade
    /// More than `limit` informational (1xx) responses before the final one.
    case tooManyInterimResponses(limit: Int)
    /// The connection ended in the middle of the response's `part`.
    case truncated(Part)

    /// Where in a response the bytes stopped.
    package enum Part: String, Sendable, Equatable {
        case head = "status line and headers"
        case body
    }

    package var description: String {
        switch self {
        case .malformedStatusLine: "malformed status line"
        case .unsupportedVersion: "unsupported HTTP version"
        case .malformedHeader: "malformed header line"
        case .headTooLarge(let limit): "response head larger than \(limit) bytes"
        case .tooManyHeaders(let limit): "more than \(limit) header lines"
        case .invalidContentLength: "invalid Content-Length"
        case .malformedChunkSize: "malformed chunk size"
        case .missingChunkEnd: "chunk data not followed by CRLF"
        case .unexpectedUpgrade: "unexpected 101 Switching Protocols"
        case .tooManyInterimResponses(let limit): "more than \(limit) informational (1xx) responses"
        case .truncated(let part): "connection closed in the middle of the response's \(part.rawValue)"
        }
    }
}
