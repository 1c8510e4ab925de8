import FuzzChecks
import Testing

/// The built-in HTTP client's response parser on inputs the fuzzer found or starts from: no crash,
/// the same response whatever the read boundaries, a body kept to its bound.
@Suite struct HTTPResponseFuzzRegressionTests {
    @Test("response parser holds its invariants on every recorded crash and seed",
          arguments: FuzzInputs.regressions("http") + FuzzInputs.seeds("http"))
    func responseInputHoldsInvariants(_ path: String) throws {
        #expect(HTTPResponseFuzzCheck.violations(in: try FuzzInputs.bytes(path)) == [], "\(path)")
    }

    @Test("the seeds are read as the responses they are: the check does not pass by failing every input")
    func seedsParseToTheirResponses() throws {
        let chunked = HTTPResponseFuzzCheck.response(try FuzzInputs.bytes("Fuzz/corpus/http/chunked-with-extension-and-trailer.txt"))
        #expect(chunked.complete && chunked.status == 200 && chunked.body == Array("Wikipedia".utf8) && chunked.error == nil)
        let retry = HTTPResponseFuzzCheck.response(try FuzzInputs.bytes("Fuzz/corpus/http/continue-then-503-retry-after.txt"))
        #expect(retry.complete && retry.status == 503 && retry.keepsConnection)
        let closeDelimited = HTTPResponseFuzzCheck.response(try FuzzInputs.bytes("Fuzz/corpus/http/http10-close-delimited.txt"))
        #expect(closeDelimited.complete && closeDelimited.body == Array("body until the connection closes".utf8) && !closeDelimited.keepsConnection)
        // issue 23: the harness reaches the Retry-After wait and the Telegram reply parser.
        let telegram = try FuzzInputs.bytes("Fuzz/corpus/http/telegram-429-retry-after-1e19.txt")
        #expect(HTTPResponseFuzzCheck.response(telegram).retryAfter == .seconds(86_400))
        #expect(HTTPResponseFuzzCheck.destinationsResponse(telegram)?.body.count == 131)
    }
}
