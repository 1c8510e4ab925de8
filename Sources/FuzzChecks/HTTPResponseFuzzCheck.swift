import HTTP

/// What the HTTP/1.1 response parser (the built-in client's, for http:// destinations) must hold
/// on any bytes a server may send: it does not crash; it keeps no more of a body than it was asked
/// to; it never claims to have read more than it was given; a complete response has a final
/// status (200–999); and what it makes of the bytes does not depend on how they were cut into
/// reads (the same status, body, error and bytes consumed).
public enum HTTPResponseFuzzCheck {
    /// The body kept: small, so that truncation is exercised too.
    static let maxBodyBytes = 64

    public static func violations(in input: [UInt8]) -> [FuzzViolation] {
        let whole = parse(input, in: [0 ..< input.count])
        let chunked = input.withUnsafeBytes { parse(input, in: InputChunking($0)) }
        var violations: [FuzzViolation] = []
        if whole != chunked {
            violations.append(FuzzViolation("the same response whatever the read boundaries",
                                            "fed at once: \(whole), in chunks: \(chunked)"))
        }
        for outcome in [whole, chunked] {
            if outcome.body.count > maxBodyBytes {
                violations.append(FuzzViolation("a body kept to maxBodyBytes", "\(outcome.body.count) bytes kept"))
            }
            if outcome.consumed > input.count {
                violations.append(FuzzViolation("no more bytes consumed than given", "\(outcome.consumed) of \(input.count)"))
            }
            if outcome.complete && !(200 ... 999).contains(outcome.status) {
                violations.append(FuzzViolation("a complete response has a final status", "status \(outcome.status)"))
            }
        }
        return violations
    }

    /// What the parser made of an input.
    public struct Outcome: Equatable, CustomStringConvertible, Sendable {
        public var consumed = 0
        public var complete = false
        public var status = 0
        public var body: [UInt8] = []
        public var truncated = false
        public var keepsConnection = false
        /// The parse error's description, if it failed.
        public var error: String?

        public var description: String {
            "consumed \(consumed), complete \(complete), status \(status), body \(body.count) bytes"
                + "\(truncated ? " (truncated)" : ""), keeps connection \(keepsConnection), error \(error ?? "none")"
        }
    }

    /// What the parser makes of `input` read at once, the connection closed after it.
    public static func response(_ input: [UInt8]) -> Outcome { parse(input, in: [0 ..< input.count]) }

    /// Feeds `input` to a parser in `chunks` until it completes or fails, then ends the connection
    /// (`finish()`) as the client does when the server closes.
    static func parse(_ input: [UInt8], in chunks: some Sequence<Range<Int>>) -> Outcome {
        var parser = HTTPResponseParser(maxBodyBytes: maxBodyBytes)
        var outcome = Outcome()
        do {
            for chunk in chunks where !parser.isComplete {
                outcome.consumed += try parser.parse(Array(input[chunk]))
            }
            try parser.finish()
        } catch {
            outcome.error = error.description
            outcome.consumed = 0  // a failing call returns no count: where it failed is not compared
        }
        outcome.complete = parser.isComplete
        outcome.status = parser.status
        outcome.body = parser.body
        outcome.truncated = parser.bodyTruncated
        outcome.keepsConnection = parser.keepsConnection
        return outcome
    }
}
