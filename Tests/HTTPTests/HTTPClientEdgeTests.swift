import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import HTTP
import SystemIO
import Testing
import TestSupport

/// The built-in client's edges (issue 19, item 6): a name lookup bounded by the request's
/// deadline and abort, Happy Eyeballs between a host's addresses, and `http_proxy`/`no_proxy` as
/// libcurl reads them.
@Suite("HTTP client edges", .serialized, .timeLimit(.minutes(1)))
struct HTTPClientEdgeTests {
    /// A listening TCP socket on [::1] whose accept queue is full: the kernel drops further SYNs,
    /// so a connection attempt to it neither succeeds nor fails until its deadline, as with a
    /// broken IPv6 route.
    final class BlackHole {
        let port: Int
        private var descriptors: [Int32] = []

        init() throws {
            let listener = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_addr = in6addr_loopback
            var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
            listen(listener, 0)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin6_port))
            descriptors.append(listener)
            // Fill the accept queue (backlog 0 holds one; a second is kept in SYN-RECV at most).
            for _ in 0..<3 {
                let client = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) } }
                descriptors.append(client)
            }
            usleep(200_000)
        }

        deinit { for descriptor in descriptors { close(descriptor) } }
    }

    static func addresses(_ pairs: [(String, Int)]) throws -> [SocketAddress] {
        try pairs.flatMap { host, port in try SocketAddress.resolve(host: host, port: port) }
    }

    @Test func aHostWhoseFirstAddressIsABlackHoleIsReachedByTheNextWithinAQuarterSecond() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let hole = try BlackHole()
        let addresses = try Self.addresses([("::1", hole.port), ("127.0.0.1", server.server.port)])
        let client = try HTTPClient(timeout: .seconds(10), label: "test", resolve: { _, _ in addresses })
        let started = ContinuousClock.now
        let response = try await client.perform(HTTPRequest(url: "http://dual-stack.test:\(server.server.port)/ok")).get()
        let took = ContinuousClock.now - started
        #expect(response.status == 200)
        #expect(took < .seconds(3), "took \(took): the black hole held the request")
        #expect(took >= PlainHTTPTransport.connectionAttemptDelay)
        #expect(server.records.first?.headers["host"] == "dual-stack.test:\(server.server.port)")
    }

    @Test func familiesAlternateStartingWithTheResolversFirst() throws {
        let v6 = try Self.addresses([("::1", 1), ("::1", 2)])
        let v4 = try Self.addresses([("127.0.0.1", 3), ("127.0.0.1", 4), ("127.0.0.1", 5)])
        let ordered = PlainHTTPTransport.interleavingFamilies(v6 + v4).map(\.description)
        #expect(ordered == ["[::1]:1", "127.0.0.1:3", "[::1]:2", "127.0.0.1:4", "127.0.0.1:5"])
    }

    @Test func aNameLookupThatHangsEndsAtTheRequestsDeadline() async throws {
        let client = try HTTPClient(timeout: .seconds(1), label: "test", resolve: { _, _ in
            sleep(5)
            return []
        })
        let started = ContinuousClock.now
        let result = await client.perform(HTTPRequest(url: "http://slow-dns.test/ok"))
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "took \(took)")
        guard case .failure(.transport(let message)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(message == "timed out after 1 s resolving slow-dns.test")
    }

    @Test func aNameLookupThatHangsIsAbandonedWhenTheTaskIsCancelled() async throws {
        let client = try HTTPClient(timeout: .seconds(30), label: "test", resolve: { _, _ in
            sleep(5)
            return []
        })
        let started = ContinuousClock.now
        let task = Task { await client.perform(HTTPRequest(url: "http://slow-dns.test/ok")) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.value
        #expect(result == .failure(.cancelled))
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test func httpProxySendsTheRequestInAbsoluteFormWithTheProxysCredentials() async throws {
        let proxy = try await TestServer.start()
        defer { proxy.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test", proxyEnvironment: [
            "http_proxy": "http://user:p%40ss@127.0.0.1:\(proxy.server.port)",
        ])
        // The origin does not exist: only the proxy can answer.
        let response = try await client.perform(HTTPRequest(url: "http://origin.invalid:8080/ok")).get()
        #expect(response.status == 200)
        let record = try #require(proxy.records.first)
        #expect(record.path == "http://origin.invalid:8080/ok")
        #expect(record.headers["host"] == "origin.invalid:8080")
        #expect(record.headers["proxy-authorization"] == "Basic \(Data("user:p@ss".utf8).base64EncodedString())")
    }

    @Test func noProxyHostsAndDomainsGoDirect() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let client = try HTTPClient(timeout: .seconds(5), label: "test", proxyEnvironment: [
            "http_proxy": "127.0.0.1:9", "no_proxy": "example.org, 127.0.0.1",
        ])
        let response = try await client.perform(HTTPRequest(url: server.url("/ok"))).get()
        #expect(response.status == 200)
        #expect(server.records.first?.path == "/ok")
    }

    @Test func theProxyVariablesAreReadAsLibcurlReadsThem() throws {
        let proxy = try #require(HTTPProxy(environment: ["http_proxy": "proxy.lan", "NO_PROXY": ".example.org,*.bad,[::1]"]))
        #expect(proxy.host == "proxy.lan" && proxy.port == 1080)
        #expect(!proxy.applies(to: "example.org") && !proxy.applies(to: "api.example.org") && !proxy.applies(to: "::1"))
        #expect(proxy.applies(to: "notexample.org") && proxy.applies(to: "127.0.0.1"))
        #expect(HTTPProxy(environment: ["HTTP_PROXY": "http://proxy.lan:3128"]) == nil, "upper case is ignored (httpoxy)")
        #expect(HTTPProxy(environment: ["http_proxy": "socks5://proxy.lan"]) == nil)
        #expect(HTTPProxy(environment: ["http_proxy": "http://[::1]:3128"])?.host == "::1")
        let all = try #require(HTTPProxy(environment: ["http_proxy": "http://proxy.lan:3128", "no_proxy": "*"]))
        #expect(all.port == 3128 && !all.applies(to: "anything.example"))
    }
}
