import HTTP
import LiveLocation
import Testing

/// The response parser alone: bytes in, a response (or an error) out; no socket.
@Suite("HTTP response parser")
struct HTTPResponseParserTests {
    /// Feeds `text` in pieces of `pieceSize` bytes (0: all at once); returns the parser and the
    /// bytes it left unconsumed (after the response).
    static func parse(_ text: String, pieceSize: Int = 0, maxBodyBytes: Int = 1 << 20,
                      limits: HTTPResponseParser.Limits = .init()) throws(HTTPResponseParseError)
        -> (parser: HTTPResponseParser, unconsumed: Int) {
        var parser = HTTPResponseParser(maxBodyBytes: maxBodyBytes, limits: limits)
        let bytes = Array(text.utf8)
        var offset = 0
        let size = pieceSize > 0 ? pieceSize : max(bytes.count, 1)
        while offset < bytes.count, !parser.isComplete {
            let piece = Array(bytes[offset..<min(offset + size, bytes.count)])
            let consumed = try parser.parse(piece)
            offset += consumed
            if consumed < piece.count { break }
        }
        return (parser, bytes.count - offset)
    }

    static let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n"
        + "5;name=value\r\nhello\r\n" + "9\r\n, chunked\r\n" + "6 ; last ; x=\"y\"\r\n world\r\n"
        + "0\r\nX-Checksum: abc\r\nX-Other: d\r\n\r\n"

    @Test(arguments: [0, 1, 2, 3, 7, 64])
    func aContentLengthResponseReadsTheSameInAnyPieces(pieceSize: Int) throws {
        let text = "HTTP/1.1 201 Created\r\nContent-Length: 11\r\nX-A: b\r\n\r\nhello world"
        let (parser, unconsumed) = try Self.parse(text, pieceSize: pieceSize)
        #expect(parser.isComplete)
        #expect(parser.status == 201)
        #expect(parser.body == Array("hello world".utf8))
        #expect(!parser.bodyTruncated)
        #expect(parser.keepsConnection)
        #expect(unconsumed == 0)
        #expect(parser.bytesRead == text.utf8.count)
    }

    @Test(arguments: [0, 1, 2, 5, 13])
    func aChunkedBodyWithExtensionsAndTrailersIsReassembled(pieceSize: Int) throws {
        let (parser, unconsumed) = try Self.parse(Self.chunked, pieceSize: pieceSize)
        #expect(parser.isComplete)
        #expect(String(decoding: parser.body, as: UTF8.self) == "hello, chunked world")
        #expect(parser.keepsConnection)
        #expect(unconsumed == 0)
    }

    @Test func chunkSizesAreHexadecimalInEitherCaseAndBareLineFeedsAreAccepted() throws {
        let body = String(repeating: "a", count: 0x1A) + String(repeating: "b", count: 0xF)
        let text = "HTTP/1.1 200 OK\nTransfer-Encoding: gzip, Chunked\n\n1a\n\(body.prefix(0x1A))\nF\n\(body.suffix(0xF))\n0\n\n"
        let (parser, _) = try Self.parse(text, pieceSize: 1)
        #expect(parser.isComplete)
        #expect(String(decoding: parser.body, as: UTF8.self) == body)
    }

    @Test func theBodyIsCutAtTheLimitAndTheRestIsReadWithoutBeingKept() throws {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 26\r\n\r\nabcdefghijklmnopqrstuvwxyzHTTP/1.1"
        let (parser, unconsumed) = try Self.parse(text, pieceSize: 4, maxBodyBytes: 5)
        #expect(parser.isComplete)
        #expect(parser.body == Array("abcde".utf8))
        #expect(parser.bodyTruncated)
        // What follows the response is not consumed: it answers no request.
        #expect(unconsumed == 8)
        let chunked = try Self.parse(Self.chunked, pieceSize: 3, maxBodyBytes: 7).parser
        #expect(chunked.body == Array("hello, ".utf8))
        #expect(chunked.bodyTruncated)
        let none = try Self.parse(Self.chunked, maxBodyBytes: 0).parser
        #expect(none.isComplete && none.body.isEmpty && none.bodyTruncated)
    }

    @Test(arguments: [0, 1])
    func informationalResponsesAreSkipped(pieceSize: Int) throws {
        let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\nConnection: close\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        let (parser, _) = try Self.parse(text, pieceSize: pieceSize)
        #expect(parser.isComplete)
        #expect(parser.status == 200)
        #expect(parser.body == Array("ok".utf8))
        // The 103's Connection: close was about the 103 only.
        #expect(parser.keepsConnection)
    }

    @Test func aBodyWithoutLengthEndsWithTheConnection() throws {
        var (parser, _) = try Self.parse("HTTP/1.1 200 OK\r\nX: y\r\n\r\npart one, ", pieceSize: 5)
        #expect(!parser.isComplete)
        _ = try parser.parse(Array("part two".utf8))
        try parser.finish()
        #expect(parser.isComplete)
        #expect(String(decoding: parser.body, as: UTF8.self) == "part one, part two")
        #expect(!parser.keepsConnection)
    }

    @Test func statusesWithoutABodyAreCompleteAfterTheirHead() throws {
        for status in [204, 304] {
            let (parser, unconsumed) = try Self.parse("HTTP/1.1 \(status) X\r\nContent-Length: 10\r\n\r\n")
            #expect(parser.isComplete)
            #expect(parser.status == status)
            #expect(parser.keepsConnection)
            #expect(unconsumed == 0)
        }
    }

    @Test func connectionHeadersDecideWhetherTheConnectionIsKept() throws {
        #expect(try !Self.parse("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 0\r\n\r\n").parser.keepsConnection)
        #expect(try !Self.parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").parser.keepsConnection)
        #expect(try Self.parse("HTTP/1.0 200 OK\r\nconnection: keep-alive\r\nContent-Length: 0\r\n\r\n").parser.keepsConnection)
        // Both framings: Transfer-Encoding wins, and the connection is closed after (RFC 9112 6.3).
        let both = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n").parser
        #expect(both.isComplete && both.body == Array("ok".utf8) && !both.keepsConnection)
        // An HTTP/1.1 reason may be empty or absent.
        #expect(try Self.parse("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n").parser.keepsConnection)
        #expect(try Self.parse("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n").parser.status == 200)
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() throws {
        let seconds = try Self.parse("HTTP/1.1 503 Busy\r\nRetry-After:  120 \r\nContent-Length: 0\r\n\r\n").parser
        #expect(seconds.retryAfter == .seconds(120))
        #expect(seconds.response(now: Timestamp(millisecondsSince1970: 0)).retryAfter == .seconds(120))
        let date = try Self.parse("HTTP/1.1 429 Slow\r\nretry-after: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n").parser
        #expect(date.retryAfter == .date(secondsSince1970: 784_111_777))
        #expect(date.response(now: Timestamp(millisecondsSince1970: 784_111_777_000 - 90_000)).retryAfter == .seconds(90))
        #expect(date.response(now: Timestamp(millisecondsSince1970: 784_111_777_000 + 1000)).retryAfter == nil)
        let zero = try Self.parse("HTTP/1.1 503 Busy\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n").parser
        #expect(zero.response(now: Timestamp(millisecondsSince1970: 0)).retryAfter == nil)
        let unreadable = try Self.parse("HTTP/1.1 503 Busy\r\nRetry-After: soon\r\nContent-Length: 0\r\n\r\n").parser
        #expect(unreadable.retryAfter == nil)
    }

    /// issue 23: no number a server sends is a wait longer than a day (nor a trap further on).
    @Test func aRetryAfterOfAbsurdLengthIsADay() throws {
        let huge = try Self.parse("HTTP/1.1 429 Slow down\r\nRetry-After: 999999999999999999\r\nContent-Length: 0\r\n\r\n").parser
        #expect(huge.response(now: Timestamp(millisecondsSince1970: 0)).retryAfter == .seconds(86_400))
        let farDate = try Self.parse("HTTP/1.1 429 Slow down\r\nRetry-After: Fri, 31 Dec 9999 23:59:59 GMT\r\nContent-Length: 0\r\n\r\n").parser
        #expect(farDate.response(now: Timestamp(millisecondsSince1970: 0)).retryAfter == .seconds(86_400))
    }

    @Test func badInputIsAnErrorNamingWhatIsWrong() {
        let cases: [(String, HTTPResponseParseError)] = [
            ("SSH-2.0-OpenSSH_9.2\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 2000 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 20 OK\r\n\r\n", .malformedStatusLine),
            ("HTTP/1.1 099 Low\r\n\r\n", .malformedStatusLine),
            ("HTTP/2 200 OK\r\n\r\n", .unsupportedVersion),
            ("HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion),
            ("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n", .malformedHeader),
            ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", .malformedHeader),
            ("HTTP/1.1 200 OK\r\nName : x\r\n\r\n", .malformedHeader),
            ("HTTP/1.1 200 OK\r\nA: b\r\n folded\r\n\r\n", .malformedHeader),
            ("HTTP/1.1 200 OK\r\nA: b\rc\r\n\r\n", .malformedHeader),
            ("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n", .invalidContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", .invalidContentLength),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", .invalidContentLength),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformedChunkSize),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", .malformedChunkSize),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", .malformedChunkSize),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", .malformedChunkSize),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n", .missingChunkEnd),
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", .unexpectedUpgrade),
        ]
        for (text, expected) in cases {
            for pieceSize in [0, 1] {
                #expect(throws: expected, "\(text.debugDescription) in pieces of \(pieceSize)") {
                    _ = try Self.parse(text, pieceSize: pieceSize)
                }
            }
        }
        // Content-Length repeated with the same value is one length.
        #expect(throws: Never.self) { _ = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok") }
    }

    @Test func theHeadIsBounded() {
        var limits = HTTPResponseParser.Limits()
        limits.maxHeadBytes = 100
        limits.maxHeaderLines = 3
        let long = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 100) + "\r\n\r\n"
        #expect(throws: HTTPResponseParseError.headTooLarge(limit: 100)) { _ = try Self.parse(long, limits: limits) }
        // Rejected as soon as the limit is passed, not when the line ends.
        #expect(throws: HTTPResponseParseError.headTooLarge(limit: 100)) {
            _ = try Self.parse("HTTP/1.1 200 OK" + String(repeating: "a", count: 200), pieceSize: 10, limits: limits)
        }
        let many = "HTTP/1.1 200 OK\r\n" + String(repeating: "A: b\r\n", count: 4) + "\r\n"
        #expect(throws: HTTPResponseParseError.tooManyHeaders(limit: 3)) { _ = try Self.parse(many, limits: limits) }
        let trailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" + String(repeating: "T: x\r\n", count: 4) + "\r\n"
        #expect(throws: HTTPResponseParseError.tooManyHeaders(limit: 3)) { _ = try Self.parse(trailers, limits: limits) }
        let interim = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 11) + "HTTP/1.1 200 OK\r\n\r\n"
        #expect(throws: HTTPResponseParseError.tooManyInterimResponses(limit: 10)) { _ = try Self.parse(interim) }
        let chunkLine = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 2000) + "\r\n"
        #expect(throws: HTTPResponseParseError.malformedChunkSize) { _ = try Self.parse(chunkLine) }
    }

    @Test func aConnectionThatEndsEarlyIsATruncatedResponse() throws {
        var head = try Self.parse("HTTP/1.1 200 OK\r\nContent-Le").parser
        #expect(throws: HTTPResponseParseError.truncated(.head)) { try head.finish() }
        var body = try Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc").parser
        #expect(throws: HTTPResponseParseError.truncated(.body)) { try body.finish() }
        var chunked = try Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel").parser
        #expect(throws: HTTPResponseParseError.truncated(.body)) { try chunked.finish() }
        var nothing = HTTPResponseParser(maxBodyBytes: 10)
        #expect(nothing.bytesRead == 0)
        #expect(throws: HTTPResponseParseError.truncated(.head)) { try nothing.finish() }
    }
}
