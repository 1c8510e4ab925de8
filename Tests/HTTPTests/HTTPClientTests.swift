import Foundation
import HTTP
import Testing
import TestSupport

@Suite("HTTP client", .serialized, .timeLimit(.minutes(1)))
struct HTTPClientTests {
    static let token = "123456:AAH-test_Token0"

    @Test func redactionReplacesEveryOccurrenceOfEverySecretIgnoringCase() {
        let text = "POST https://api.telegram.org/bot123456:AAH-Secret/sendLocation failed; bot123456:aah-secret again"
        let result = redacted(text, hiding: ["123456:AAH-Secret", "", "absent"])
        #expect(result == "POST https://api.telegram.org/bot<redacted>/sendLocation failed; bot<redacted> again")
        #expect(redacted("nothing to hide", hiding: ["123456:AAH-Secret"]) == "nothing to hide")
        #expect(redacted("ü 123:X ü", hiding: ["123:x"]) == "ü <redacted> ü")
    }

    @Test func formEncodingKeepsUnreservedBytesAndEscapesTheRest() {
        let text = HTTPForm.encode([("id", "dev 1"), ("expiresAt", "2026-03-14T08:15:00.000Z"), ("x", "a&b=c/ü*-._~")])
        #expect(text == "id=dev+1&expiresAt=2026-03-14T08%3A15%3A00.000Z&x=a%26b%3Dc%2F%C3%BC*-._%7E")
    }

    @Test func performSendsTheJSONBodyToTheRequestURLAndReturnsTheResponseBody() async throws {
        let directory = try Paths.temporaryDirectory("http-client")
        let api = try await BotAPIServer.start(token: Self.token, records: directory.appendingPathComponent("calls.jsonl"))
        defer { api.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let body = Array(#"{"chat_id":42,"latitude":48.5,"longitude":11.25,"live_period":900}"#.utf8)
        let result = await client.perform(HTTPRequest(url: "\(api.apiURL)/bot\(Self.token)/sendLocation", body: .json(body)))
        let response = try result.get()
        #expect(response.status == 200)
        #expect(!response.bodyTruncated)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains(#""message_id": 1"#))
        let call = try #require(api.calls().first)
        #expect(call.method == "sendLocation")
        #expect(call.params["live_period"] == "900")
        #expect(call.number("latitude") == 48.5)
    }

    @Test func aLongBodyIsCutAtTheLimitAndMarkedTruncated() async throws {
        let directory = try Paths.temporaryDirectory("http-client")
        let api = try await BotAPIServer.start(token: Self.token, records: directory.appendingPathComponent("calls.jsonl"))
        defer { api.stop() }
        let client = try HTTPClient(timeout: .seconds(5), maxResponseBytes: 16, label: "test")
        let url = "\(api.apiURL)/bot\(Self.token)/sendLocation"
        let body = HTTPRequest.Body.json(Array(#"{"chat_id":42,"latitude":1,"longitude":2}"#.utf8))
        let first = try await client.perform(HTTPRequest(url: url, body: body)).get()
        #expect(first.body.count == 16)
        #expect(first.bodyTruncated)
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"ok": true, "re"#)
        // The connection stays usable: the next answer is read whole from its start.
        let second = await client.perform(HTTPRequest(url: "\(api.apiURL)/bot\(Self.token)/nothing"))
        #expect(try second.get().status == 404)
        #expect(api.calls().count == 2)
    }

    @Test func aConnectionClosedWithoutAnAnswerIsNoResponse() async throws {
        let directory = try Paths.temporaryDirectory("http-client")
        let server = try await OsmAndServer.start(devices: ["d"], records: directory.appendingPathComponent("r.jsonl"),
                                                  script: ["close"])
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let result = await client.perform(HTTPRequest(url: server.url + "/", body: .form([("id", "d")])))
        guard case .failure(.noResponse(let message)) = result else {
            Issue.record("expected noResponse, got \(result)")
            return
        }
        #expect(!message.isEmpty)
        // The form body reached the server as the OsmAnd decoder reads it.
        #expect(server.records().first?.params == ["id": "d"])
        #expect(server.records().first?.inBody == true)
    }

    @Test func transportErrorsNeverShowTheRequestsSecrets() async throws {
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        // libcurl names an unknown scheme in its message: the secret is in it, lower-cased.
        let secret = "SeCrEtToKeN"
        let result = await client.perform(HTTPRequest(url: "\(secret)://127.0.0.1/bot\(secret)/x", secrets: [secret]))
        guard case .failure(.transport(let message)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(message.contains(redactionMark))
        #expect(!message.lowercased().contains(secret.lowercased()))
    }

    @Test func requestsGoOutInTheOrderOfTheCallsWithCompletionOnTheClientsQueue() async throws {
        let directory = try Paths.temporaryDirectory("http-client")
        let server = try await OsmAndServer.start(devices: ["d"], records: directory.appendingPathComponent("r.jsonl"))
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let statuses = await withCheckedContinuation { (continuation: CheckedContinuation<[Int], Never>) in
            let collected = Collected()
            for index in 0..<5 {
                client.perform(HTTPRequest(url: server.url + "/?id=\(index == 2 ? "x" : "d")&n=\(index)")) { result in
                    if collected.append((try? result.get().status) ?? -1) == 5 { continuation.resume(returning: collected.values) }
                }
            }
        }
        #expect(statuses == [200, 200, 400, 200, 200])
        #expect(server.records().map { $0.params["n"] } == ["0", "1", "2", "3", "4"])
    }
}

/// Statuses gathered from completions that run one at a time on the client's queue.
private final class Collected: @unchecked Sendable {
    private(set) var values: [Int] = []
    func append(_ value: Int) -> Int {
        values.append(value)
        return values.count
    }
}
