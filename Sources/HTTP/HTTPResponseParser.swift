import LiveLocation

/// Reads one HTTP/1.1 response from a connection's bytes, in whatever pieces they arrive: a pure
/// state machine (no I/O, no clock), fed by the connection's read loop (`HTTPConnection`), the way
/// swift-nio keeps framing apart from the socket.
///
/// It skips informational (1xx) responses, frames the body by `Transfer-Encoding: chunked`
/// (extensions and trailers read and ignored), `Content-Length`, or the end of the connection
/// (`finish()`), keeps the body's first `maxBodyBytes` bytes and reads the rest without keeping
/// it, and says whether the connection can carry another request (`keepsConnection`). The status
/// line and headers are bounded (`Limits`); anything it cannot read is an `HTTPResponseParseError`.
package struct HTTPResponseParser: Sendable {
    /// Bounds on what a server may send before the body.
    package struct Limits: Sendable {
        /// The status line and headers of one response (and, separately, its trailers), CRLFs included.
        package var maxHeadBytes = 16 << 10
        /// Header lines in one head (and trailer lines).
        package var maxHeaderLines = 100
        /// One chunk-size line, extensions included.
        package var maxChunkLineBytes = 1024
        /// Informational (1xx) responses before the final one.
        package var maxInterimResponses = 10

        package init() {}
    }

    private enum State {
        case statusLine
        case headerLine
        case fixedBody(remaining: Int)
        case chunkSizeLine
        case chunkData(remaining: Int)
        /// The CRLF after a chunk's data.
        case chunkDataEnd
        case trailerLine
        case untilClose
        case complete
    }

    private let limits: Limits
    private let maxBodyBytes: Int
    private var state = State.statusLine
    /// The line being read (without its LF), across pieces.
    private var line: [UInt8] = []
    /// Bytes of the current head (or of the trailers) so far.
    private var headBytes = 0
    private var headerLines = 0
    private var interimResponses = 0

    /// Bytes consumed so far, informational responses included: 0 until the server sent something.
    package private(set) var bytesRead = 0
    /// The final response's status code (valid once complete).
    package private(set) var status = 0
    /// Its `Retry-After` header, when it has one that reads.
    package private(set) var retryAfter: HTTPRetryAfter?
    /// The body's first `maxBodyBytes` bytes (chunked framing removed).
    package private(set) var body: [UInt8] = []
    /// True when the body was longer than `maxBodyBytes`.
    package private(set) var bodyTruncated = false

    private var isHTTP10 = false
    private var connectionClose = false
    private var connectionKeepAlive = false
    private var contentLength: Int?
    private var hasTransferEncoding = false
    private var isChunked = false
    private var delimitedByClose = false

    /// - Parameter maxBodyBytes: how much of the body to keep (0: none; the rest is read and dropped).
    package init(maxBodyBytes: Int, limits: Limits = Limits()) {
        self.maxBodyBytes = max(maxBodyBytes, 0)
        self.limits = limits
    }

    /// True once the final response has been read whole.
    package var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Whether the connection may carry another request after this (complete) response: not when
    /// the server said `Connection: close`, spoke HTTP/1.0 without `keep-alive`, ended the body by
    /// closing, or sent both Transfer-Encoding and Content-Length (RFC 9112 6.3: close after it).
    package var keepsConnection: Bool {
        isComplete && !connectionClose && (!isHTTP10 || connectionKeepAlive) && !delimitedByClose
            && !(hasTransferEncoding && contentLength != nil)
    }

    /// The response, once complete; `now` turns a `Retry-After` date into a wait.
    package func response(now: Timestamp) -> HTTPResponse {
        HTTPResponse(status: status, retryAfter: retryAfter?.delay(now: now), body: body, bodyTruncated: bodyTruncated)
    }

    /// Consumes bytes of the response from the start of `input`; returns how many. Fewer than
    /// `input.count` only once the response is complete (the rest belongs to no request).
    /// - Throws: `HTTPResponseParseError` for bytes that are not a response it can read; the
    ///   connection is then unusable.
    package mutating func parse(_ input: UnsafeRawBufferPointer) throws(HTTPResponseParseError) -> Int {
        var index = 0
        let count = input.count
        while index < count {
            switch state {
            case .complete:
                return index
            case .statusLine, .headerLine, .chunkSizeLine, .chunkDataEnd, .trailerLine:
                var end = index
                while end < count && input[end] != 0x0A { end += 1 }
                let found = end < count
                try appendToLine(UnsafeRawBufferPointer(rebasing: input[index..<end]), withNewline: found)
                let consumed = end - index + (found ? 1 : 0)
                bytesRead += consumed
                index += consumed
                if found {
                    if line.last == 0x0D { line.removeLast() }
                    try lineEnded()
                    line.removeAll(keepingCapacity: true)
                }
            case .fixedBody(let remaining):
                let take = min(remaining, count - index)
                keep(UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                bytesRead += take
                state = take == remaining ? .complete : .fixedBody(remaining: remaining - take)
            case .chunkData(let remaining):
                let take = min(remaining, count - index)
                keep(UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                bytesRead += take
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .untilClose:
                keep(UnsafeRawBufferPointer(rebasing: input[index...]))
                bytesRead += count - index
                index = count
            }
        }
        return index
    }

    /// `parse` for bytes in an array (tests, small inputs).
    package mutating func parse(_ bytes: [UInt8]) throws(HTTPResponseParseError) -> Int {
        let result = bytes.withUnsafeBytes { input in Result { () throws(HTTPResponseParseError) in try parse(input) } }
        return try result.get()
    }

    /// The connection ended: completes a body delimited by the end of the connection.
    /// - Throws: `.truncated` when the response was not complete.
    package mutating func finish() throws(HTTPResponseParseError) {
        switch state {
        case .complete: return
        case .untilClose: state = .complete
        case .statusLine, .headerLine: throw .truncated(.head)
        default: throw .truncated(.body)
        }
    }

    // MARK: Lines

    private mutating func appendToLine(_ piece: UnsafeRawBufferPointer, withNewline: Bool) throws(HTTPResponseParseError) {
        let length = line.count + piece.count + (withNewline ? 1 : 0)
        switch state {
        case .statusLine, .headerLine, .trailerLine:
            guard headBytes + length <= limits.maxHeadBytes else { throw .headTooLarge(limit: limits.maxHeadBytes) }
            if withNewline { headBytes += length }
        case .chunkSizeLine:
            guard length <= limits.maxChunkLineBytes else { throw .malformedChunkSize }
        case .chunkDataEnd:
            // Only "\r\n" (or a bare "\n") may follow a chunk's data.
            guard line.count + piece.count <= 1 else { throw .missingChunkEnd }
        default:
            break
        }
        line.append(contentsOf: piece)
    }

    private mutating func lineEnded() throws(HTTPResponseParseError) {
        switch state {
        case .statusLine:
            try readStatusLine()
            state = .headerLine
        case .headerLine:
            if line.isEmpty { try headEnded() } else { try readHeader() }
        case .chunkSizeLine:
            let size = try chunkSize()
            if size == 0 {
                headBytes = 0
                headerLines = 0
                state = .trailerLine
            } else {
                state = .chunkData(remaining: size)
            }
        case .chunkDataEnd:
            guard line.isEmpty else { throw .missingChunkEnd }
            state = .chunkSizeLine
        case .trailerLine:
            if line.isEmpty {
                state = .complete
            } else {
                headerLines += 1
                guard headerLines <= limits.maxHeaderLines else { throw .tooManyHeaders(limit: limits.maxHeaderLines) }
            }
        default:
            break
        }
    }

    /// `HTTP/1.1 200 OK` (the reason may be empty or absent).
    private mutating func readStatusLine() throws(HTTPResponseParseError) {
        guard line.count >= 12, line.starts(with: "HTTP/".utf8) else { throw .malformedStatusLine }
        guard line[5] == UInt8(ascii: "1"), line[6] == UInt8(ascii: "."), isDigit(line[7]) else {
            throw isDigit(line[5]) ? .unsupportedVersion : .malformedStatusLine
        }
        guard line[8] == 0x20, isDigit(line[9]), isDigit(line[10]), isDigit(line[11]),
              line.count == 12 || line[12] == 0x20 else { throw .malformedStatusLine }
        let code = Int(line[9] - 48) * 100 + Int(line[10] - 48) * 10 + Int(line[11] - 48)
        guard code >= 100 else { throw .malformedStatusLine }
        status = code
        isHTTP10 = line[7] == UInt8(ascii: "0")
    }

    private mutating func readHeader() throws(HTTPResponseParseError) {
        headerLines += 1
        guard headerLines <= limits.maxHeaderLines else { throw .tooManyHeaders(limit: limits.maxHeaderLines) }
        // A line that starts with white space folds the previous one (obsolete): not accepted.
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              !line[..<colon].contains(where: { !isTokenByte($0) }),
              !line.contains(0x0D)
        else { throw .malformedHeader }
        let value = trimmed(line[(colon + 1)...])
        let name = line[..<colon]
        if matches(name, "content-length") {
            var length: Int?
            for item in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let digits = trimmed(item)
                guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(isDigit) else { throw .invalidContentLength }
                let number = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
                guard length == nil || length == number else { throw .invalidContentLength }
                length = number
            }
            guard let length, contentLength == nil || contentLength == length else { throw .invalidContentLength }
            contentLength = length
        } else if matches(name, "transfer-encoding") {
            hasTransferEncoding = true
            let last = value.split(separator: UInt8(ascii: ",")).last.map(trimmed) ?? []
            isChunked = matches(last, "chunked")
        } else if matches(name, "connection") {
            for token in value.split(separator: UInt8(ascii: ",")).map(trimmed) {
                if matches(token, "close") { connectionClose = true }
                if matches(token, "keep-alive") { connectionKeepAlive = true }
            }
        } else if matches(name, "retry-after") {
            if let after = HTTPRetryAfter(value) { retryAfter = after }
        }
    }

    private mutating func headEnded() throws(HTTPResponseParseError) {
        if status < 200 {
            guard status != 101 else { throw .unexpectedUpgrade }
            interimResponses += 1
            guard interimResponses <= limits.maxInterimResponses else {
                throw .tooManyInterimResponses(limit: limits.maxInterimResponses)
            }
            // An informational response: its headers say nothing about the final one.
            status = 0
            retryAfter = nil
            isHTTP10 = false
            connectionClose = false
            connectionKeepAlive = false
            contentLength = nil
            hasTransferEncoding = false
            isChunked = false
            headBytes = 0
            headerLines = 0
            state = .statusLine
            return
        }
        if status == 204 || status == 304 {
            state = .complete
        } else if hasTransferEncoding {
            if isChunked {
                state = .chunkSizeLine
            } else {
                delimitedByClose = true
                state = .untilClose
            }
        } else if let contentLength {
            state = contentLength == 0 ? .complete : .fixedBody(remaining: contentLength)
        } else {
            delimitedByClose = true
            state = .untilClose
        }
    }

    /// `1a2b` then optional white space and `;extensions`.
    private func chunkSize() throws(HTTPResponseParseError) -> Int {
        var size = 0
        var digits = 0
        var index = 0
        while index < line.count, let value = hexValue(line[index]) {
            digits += 1
            guard digits <= 15 else { throw .malformedChunkSize }
            size = size << 4 | value
            index += 1
        }
        guard digits > 0 else { throw .malformedChunkSize }
        while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
        guard index == line.count || line[index] == UInt8(ascii: ";") else { throw .malformedChunkSize }
        return size
    }

    // MARK: Body

    private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
        let room = maxBodyBytes - body.count
        if room > 0 { body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes.prefix(room))) }
        if bytes.count > room { bodyTruncated = true }
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

private func hexValue(_ byte: UInt8) -> Int? {
    switch byte {
    case 48...57: Int(byte - 48)
    case 65...70: Int(byte - 55)
    case 97...102: Int(byte - 87)
    default: nil
    }
}

/// RFC 9110's tchar: what a header's name is made of.
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 48...57, 65...90, 97...122: true
    // ! # $ % & ' * + - . ^ _ ` | ~
    case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
    default: false
    }
}

private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
    while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
    return slice
}

/// ASCII-case-insensitive comparison with a lower-case name.
private func matches(_ bytes: ArraySlice<UInt8>, _ lowercased: StaticString) -> Bool {
    guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
    let name = UnsafeBufferPointer(start: lowercased.utf8Start, count: lowercased.utf8CodeUnitCount)
    // (typed step by step: Swift 6.2's type checker gives up on the one-expression form)
    return zip(bytes, name).allSatisfy { (byte: UInt8, expected: UInt8) -> Bool in
        let folded: UInt8 = byte >= 65 && byte <= 90 ? byte + 32 : byte
        return folded == expected
    }
}
