import Delivery
import HTTP
import LiveLocation
import Telegram
import Traccar

/// What the HTTP/1.1 response parser (the built-in client's, for http:// destinations) must hold
/// on any bytes a server may send: it does not crash; it keeps no more of a body than it was asked
/// to; it never claims to have read more than it was given; a complete response has a final
/// status (200–999); and what it makes of the bytes does not depend on how they were cut into
/// reads (the same status, body, error and bytes consumed).
///
/// The answer then goes where a destination takes it: its `Retry-After` turned into a wait, the
/// Telegram reply parser (the Bot API's JSON: `retry_after`, `message_id`, `error_code`) and
/// Traccar's classification. No number in it may crash them, and no wait asked for may be longer
/// than `Duration.longestServerWait`. The input is also read as a Bot API answer's body by itself.
package enum HTTPResponseFuzzCheck {
    /// The body kept: small, so that truncation is exercised too.
    static let maxBodyBytes = 64

    package static func violations(in input: [UInt8]) -> [FuzzViolation] {
        let whole = parse(input, in: [0 ..< input.count])
        let chunked = input.withUnsafeBytes { parse(input, in: InputChunking($0)) }
        var violations: [FuzzViolation] = []
        if whole != chunked {
            violations.append(FuzzViolation("the same response whatever the read boundaries",
                                            "fed at once: \(whole), in chunks: \(chunked)"))
        }
        violations += waitViolations(whole.retryAfter, "the Retry-After header's wait")
        violations += replyViolations(of: destinationsResponse(input))
        violations += replyViolations(of: HTTPResponse(status: 429, body: input))
        violations += replyViolations(of: HTTPResponse(status: 200, body: input))
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
    package struct Outcome: Equatable, CustomStringConvertible, Sendable {
        package var consumed = 0
        package var complete = false
        package var status = 0
        package var body: [UInt8] = []
        package var truncated = false
        package var keepsConnection = false
        /// The parse error's description, if it failed.
        package var error: String?
        /// The wait from the `Retry-After` header, at `now`.
        package var retryAfter: Duration?

        package var description: String {
            "consumed \(consumed), complete \(complete), status \(status), body \(body.count) bytes"
                + "\(truncated ? " (truncated)" : ""), keeps connection \(keepsConnection), error \(error ?? "none")"
        }
    }

    /// What the parser makes of `input` read at once, the connection closed after it.
    package static func response(_ input: [UInt8]) -> Outcome { parse(input, in: [0 ..< input.count]) }

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
        if parser.isComplete { outcome.retryAfter = parser.response(now: now).retryAfter }
        return outcome
    }

    /// A Bot API answer is a few hundred bytes; a destination keeps up to 64 KiB.
    static let replyBodyBytes = 1 << 16
    /// A fixed `now` (2026-12-04), so that a Retry-After date gives the same wait on every run.
    static let now = Timestamp(millisecondsSince1970: 1_796_400_000_000)

    /// The response as a destination's client reads it (the body up to `replyBodyBytes`), nil
    /// when it is incomplete or malformed.
    package static func destinationsResponse(_ input: [UInt8]) -> HTTPResponse? {
        var parser = HTTPResponseParser(maxBodyBytes: replyBodyBytes)
        do {
            _ = try parser.parse(input)
            try parser.finish()
        } catch {
            return nil
        }
        return parser.isComplete ? parser.response(now: now) : nil
    }

    static func waitViolations(_ wait: Duration?, _ what: String) -> [FuzzViolation] {
        guard let wait else { return [] }
        guard wait >= .zero, wait <= .longestServerWait else {
            return [FuzzViolation("a server's wait is at most a day and never negative", "\(what): \(wait)")]
        }
        return []
    }

    /// Classifies `response` as the Telegram and Traccar destinations do.
    static func replyViolations(of response: HTTPResponse?) -> [FuzzViolation] {
        guard let response else { return [] }
        var violations: [FuzzViolation] = []
        let position = TelegramPosition(latitude: 48.1, longitude: 11.5)
        for call in [TelegramCall.sendLocation(position, livePeriodSeconds: 900), .editLiveLocation(messageID: 7, position)] {
            if case .floodWait(let wait, _) = TelegramReply.classify(.success(response), to: call, secrets: []) {
                violations += waitViolations(wait, "Telegram's retry_after")
            }
        }
        if case .retry(_, let wait) = TraccarReply.outcome(of: .success(response), deviceID: "fuzz") {
            violations += waitViolations(wait, "Traccar's Retry-After")
        }
        return violations
    }
}
