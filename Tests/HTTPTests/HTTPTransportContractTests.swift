import Foundation
import HTTP
import Testing
import TestSupport

/// One contract, both transports: what a destination gets from `HTTPClient` must not depend on
/// whether the built-in client or libcurl carried the request (https:// always goes through
/// libcurl; http:// through the built-in client). Each case runs against `scripts/http-test-server.py`
/// on loopback with each transport.
@Suite("HTTP transports' contract", .serialized, .timeLimit(.minutes(2)))
struct HTTPTransportContractTests {
    static func client(_ transport: HTTPTransportChoice, timeout: Duration = .seconds(5), maxResponseBytes: Int = 64 << 10) throws -> HTTPClient {
        try HTTPClient(timeout: timeout, maxResponseBytes: maxResponseBytes, label: "contract", httpTransport: transport)
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func anAnswerIsItsStatusAndBodyWithTheRequestsHeadersAndBodyDelivered(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try Self.client(transport)
        let response = try await client.perform(HTTPRequest(url: server.url("/ok"), headers: ["X-Event: evt_1"],
                                                            body: .json(Array(#"{"n":1}"#.utf8)))).get()
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
        let record = try #require(server.records.first)
        #expect(record.method == "POST" && record.path == "/ok" && record.body == #"{"n":1}"#)
        #expect(record.headers["x-event"] == "evt_1")
        #expect(record.headers["content-type"] == "application/json")
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func retryAfterIsReadInSecondsAndAsADate(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try Self.client(transport)
        let seconds = try await client.perform(HTTPRequest(url: server.url("/retry-after/7"))).get()
        #expect(seconds.status == 503 && seconds.retryAfter == .seconds(7))
        let date = try await client.perform(HTTPRequest(url: server.url("/retry-after-date/30"))).get()
        #expect(date.status == 429)
        let wait = try #require(date.retryAfter)
        #expect(wait > .seconds(25) && wait <= .seconds(31))
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func aConnectionClosedWithoutAnAnswerIsNoResponse(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let result = await (try Self.client(transport)).perform(HTTPRequest(url: server.url("/empty")))
        guard case .failure(.noResponse) = result else {
            Issue.record("\(transport): expected no response, got \(result)")
            return
        }
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func aServerThatNeverAnswersIsATransportFailureWithinTheTimeout(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let started = ContinuousClock.now
        let result = await (try Self.client(transport, timeout: .seconds(1))).perform(HTTPRequest(url: server.url("/never")))
        #expect(ContinuousClock.now - started < .seconds(4))
        guard case .failure(.transport) = result else {
            Issue.record("\(transport): expected a transport failure, got \(result)")
            return
        }
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func aRefusedConnectionIsATransportFailure(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        let url = server.url("/ok")
        server.stop()
        let result = await (try Self.client(transport)).perform(HTTPRequest(url: url))
        guard case .failure(.transport) = result else {
            Issue.record("\(transport): expected a transport failure, got \(result)")
            return
        }
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func aLongBodyIsCutAtTheLimitAndTheNextAnswerReadWhole(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try Self.client(transport, maxResponseBytes: 100)
        let big = try await client.perform(HTTPRequest(url: server.url("/big/100000"))).get()
        #expect(big.status == 200 && big.body.count == 100 && big.bodyTruncated)
        let next = try await client.perform(HTTPRequest(url: server.url("/ok"))).get()
        #expect(next.body == Array("ok".utf8) && !next.bodyTruncated)
    }

    @Test(arguments: HTTPTransportChoice.allCases)
    func aChunkedAnswerIsReassembled(_ transport: HTTPTransportChoice) async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let response = try await (try Self.client(transport)).perform(HTTPRequest(url: server.url("/chunked"))).get()
        #expect(response.status == 200)
        #expect(!response.body.isEmpty)
        let plain = try await (try Self.client(.builtIn)).perform(HTTPRequest(url: server.url("/chunked"))).get()
        #expect(response.body == plain.body)
    }
}
