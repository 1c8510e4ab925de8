import Foundation
import HTTP
import Testing
import TestSupport

/// One request as `scripts/http-test-server.py` saw it.
struct TestServerRecord: Decodable, Equatable {
    var connection: Int
    var request: Int
    var method: String
    var path: String
    var headers: [String: String]
    var body: String
}

/// `scripts/http-test-server.py` on loopback: each path is one server behaviour.
struct TestServer {
    let server: LoopbackScriptServer
    let host: String

    static func start(ipv6: Bool = false) async throws -> TestServer {
        let directory = try Paths.temporaryDirectory("http-plain")
        let server = try await LoopbackScriptServer.start(script: "http-test-server.py", arguments: ipv6 ? ["--ipv6"] : [],
                                                          records: directory.appendingPathComponent("requests.jsonl"))
        return TestServer(server: server, host: ipv6 ? "[::1]" : "127.0.0.1")
    }

    func url(_ path: String) -> String { "http://\(host):\(server.port)\(path)" }
    var records: [TestServerRecord] { server.records(as: TestServerRecord.self) }
    func stop() { server.stop() }
}

/// The built-in HTTP/1.1 client (http:// URLs) against a real server on loopback.
@Suite("HTTP client, built-in transport", .serialized, .timeLimit(.minutes(1)))
struct PlainHTTPClientTests {
    @Test func requestsReuseOneKeepAliveConnection() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        for index in 0..<5 {
            let response = try await client.perform(HTTPRequest(url: server.url("/ok"), headers: ["X-Index: \(index)"],
                                                                body: .json(Array("{\"n\":\(index)}".utf8)))).get()
            #expect(response.status == 200)
            #expect(response.body == Array("ok".utf8))
        }
        let records = server.records
        #expect(records.map(\.connection) == [1, 1, 1, 1, 1])
        #expect(records.map(\.request) == [1, 2, 3, 4, 5])
        #expect(records.map { $0.headers["x-index"] } == ["0", "1", "2", "3", "4"])
        #expect(records.last?.body == #"{"n":4}"#)
        #expect(records.first?.headers["host"] == "127.0.0.1:\(server.server.port)")
        #expect(records.first?.headers["content-type"] == "application/json")
        #expect(records.first?.headers["user-agent"] == "livelocd-test/1")
        #expect(client.connectionsOpened == 1)
    }

    @Test func theWebhooksPostReusesItsConnectionToo() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(url: server.url("/ok"), caFile: nil, timeout: .seconds(5))
        for _ in 0..<3 {
            #expect(await client.post(body: Array("{}".utf8), headers: ["webhook-id: x"]) == .response(status: 200, retryAfter: nil))
        }
        #expect(server.records.map(\.connection) == [1, 1, 1])
    }

    @Test func aChunkedResponseIsReassembledAndTheConnectionKept() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let response = try await client.perform(HTTPRequest(method: .get, url: server.url("/chunked"))).get()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello, chunked world")
        #expect(try await client.perform(HTTPRequest(method: .get, url: server.url("/ok"))).get().status == 200)
        #expect(server.records.map(\.connection) == [1, 1])
    }

    @Test func connectionCloseAndABodyEndedByClosingOpenANewConnection() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let closed = try await client.perform(HTTPRequest(method: .get, url: server.url("/close"))).get()
        #expect(closed.status == 200 && closed.body == Array("bye".utf8))
        let untilClose = try await client.perform(HTTPRequest(method: .get, url: server.url("/until-close"))).get()
        #expect(String(decoding: untilClose.body, as: UTF8.self) == "the body ends with the connection")
        #expect(try await client.perform(HTTPRequest(method: .get, url: server.url("/continue"))).get().body == Array("after 100".utf8))
        #expect(server.records.map(\.connection) == [1, 2, 3])
        #expect(client.connectionsOpened == 3)
    }

    @Test func aServerThatClosedTheIdleConnectionGetsTheNextRequestOnANewOne() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        #expect(try await client.perform(HTTPRequest(method: .get, url: server.url("/idle-close"))).get().status == 200)
        // Let the server's close arrive, as after an idle timeout.
        try await Task.sleep(for: .milliseconds(100))
        #expect(try await client.perform(HTTPRequest(method: .get, url: server.url("/ok"))).get().status == 200)
        #expect(server.records.map(\.connection) == [1, 2])
    }

    @Test func aReusedConnectionDroppedBeforeAnyAnswerIsRetriedOnceOnANewOne() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        #expect(try await client.perform(HTTPRequest(url: server.url("/drop-if-reused"))).get().status == 200)
        // Sent on the kept connection, dropped unanswered, sent again on a new one: answered.
        #expect(try await client.perform(HTTPRequest(url: server.url("/drop-if-reused"))).get().status == 200)
        #expect(server.records.map { [$0.connection, $0.request] } == [[1, 1], [1, 2], [2, 1]])
        // A new connection closed without an answer is not retried: the server saw it once.
        let fresh = try HTTPClient(timeout: .seconds(5), label: "test")
        let empty = await fresh.perform(HTTPRequest(url: server.url("/empty")))
        guard case .failure(.noResponse(let message)) = empty else {
            Issue.record("expected noResponse, got \(empty)")
            return
        }
        #expect(message.contains("empty reply from 127.0.0.1:\(server.server.port)"))
        #expect(server.records.filter { $0.path == "/empty" }.count == 1)
    }

    @Test func aServerThatNeverAnswersIsATimeoutAfterTheRequestTimeout() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(url: server.url("/never"), caFile: nil, timeout: .milliseconds(700))
        let started = ContinuousClock.now
        let outcome = await client.post(body: Array("{}".utf8), headers: [])
        let elapsed = ContinuousClock.now - started
        #expect(outcome == .transportError("timed out after 700 ms waiting for the response from 127.0.0.1:\(server.server.port)"))
        #expect(elapsed >= .milliseconds(690))
        #expect(elapsed < .seconds(5))
    }

    @Test func aCancelledTaskAbandonsTheRequestWithinTheAbortInterval() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(30), label: "test")
        let started = ContinuousClock.now
        let task = Task { await client.perform(HTTPRequest(url: server.url("/never"))) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        #expect(await task.value == .failure(.cancelled))
        #expect(ContinuousClock.now - started < .seconds(5))
        // abort() does the same for a request made with a completion.
        let aborted = await withCheckedContinuation { continuation in
            client.perform(HTTPRequest(url: server.url("/never"))) { continuation.resume(returning: $0) }
            Task {
                try await Task.sleep(for: .milliseconds(200))
                client.abort()
            }
        }
        #expect(aborted == .failure(.cancelled))
        // The client goes on working after an abort.
        #expect(try await client.perform(HTTPRequest(url: server.url("/ok"))).get().status == 200)
    }

    @Test func aRefusedConnectionIsATransportErrorNamingTheAddress() async throws {
        let server = try await TestServer.start()
        let port = server.server.port
        server.stop()
        let client = try HTTPClient(url: "http://127.0.0.1:\(port)/hook", caFile: nil, timeout: .seconds(5))
        #expect(await client.post(body: [], headers: [])
                == .transportError("connect 127.0.0.1:\(port): Connection refused (ECONNREFUSED)"))
    }

    @Test func aConnectionResetInsteadOfAnAnswerIsATransportErrorNamingTheCallAndThePeer() async throws {
        // The peer's text is made only when a send or recv fails: it must still be there then.
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(url: server.url("/reset"), caFile: nil, timeout: .seconds(5))
        #expect(await client.post(body: [], headers: [])
                == .transportError("recv 127.0.0.1:\(server.server.port): Connection reset by peer (ECONNRESET)"))
        #expect(server.records.filter { $0.path == "/reset" }.count == 1)
    }

    @Test func aHostThatDoesNotResolveIsATransportErrorNamingIt() async throws {
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let result = await client.perform(HTTPRequest(url: "http://no-such-host.invalid/x"))
        guard case .failure(.transport(let message)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(message.hasPrefix("could not resolve host 'no-such-host.invalid': "))
    }

    @Test func retryAfterIsReadInSecondsAndAsADate() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let seconds = try await client.perform(HTTPRequest(url: server.url("/retry-after/42"))).get()
        #expect(seconds.status == 503)
        #expect(seconds.retryAfter == .seconds(42))
        let date = try await client.perform(HTTPRequest(url: server.url("/retry-after-date/120"))).get()
        #expect(date.status == 429)
        let wait = try #require(date.retryAfter)
        #expect(wait > .seconds(115) && wait <= .seconds(121))
        let webhook = try HTTPClient(url: server.url("/retry-after/7"), caFile: nil, timeout: .seconds(5))
        #expect(await webhook.post(body: [], headers: []) == .response(status: 503, retryAfter: .seconds(7)))
    }

    @Test func aLongBodyIsCutAtTheCapAndTheConnectionStaysUsable() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), maxResponseBytes: 1000, label: "test")
        let big = try await client.perform(HTTPRequest(method: .get, url: server.url("/big/300000"))).get()
        #expect(big.body == [UInt8](repeating: UInt8(ascii: "x"), count: 1000))
        #expect(big.bodyTruncated)
        let next = try await client.perform(HTTPRequest(method: .get, url: server.url("/ok"))).get()
        #expect(next.body == Array("ok".utf8) && !next.bodyTruncated)
        #expect(server.records.map(\.connection) == [1, 1])
    }

    @Test func aResponseThatIsNotHTTPIsAMalformedResponse() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        let result = await client.perform(HTTPRequest(url: server.url("/garbage")))
        #expect(result == .failure(.transport("malformed response from 127.0.0.1:\(server.server.port): malformed status line")))
    }

    @Test func anIPv6ServerIsReachedByItsBracketedAddress() async throws {
        guard let server = try? await TestServer.start(ipv6: true) else { return }  // no ::1 here
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test")
        #expect(try await client.perform(HTTPRequest(url: server.url("/ok"))).get().status == 200)
        #expect(server.records.first?.headers["host"] == "[::1]:\(server.server.port)")
    }

    @Test func theTokenInTheURLNeverAppearsInAnError() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let token = "123456:AAH-secret"
        let client = try HTTPClient(timeout: .milliseconds(300), label: "test")
        let result = await client.perform(HTTPRequest(url: server.url("/never/bot\(token)/x"), secrets: [token]))
        #expect(!"\(result)".contains(token))
        let bad = await client.perform(HTTPRequest(url: "http://h/bot\(token) x", secrets: [token]))
        guard case .failure(.transport(let message)) = bad else {
            Issue.record("expected a transport error, got \(bad)")
            return
        }
        #expect(message.contains(redactionMark) && !message.contains(token))
    }
}
