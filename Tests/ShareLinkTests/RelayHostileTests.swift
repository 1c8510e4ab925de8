import Foundation
import Relay
import ShareLink
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What a hostile client can do to the relay, with the real program on loopback.
@Suite struct RelayHostileTests {
    /// A TCP connection from `source` (a loopback address) to the relay; -1 when refused.
    static func connect(from source: String, port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else { close(fd); return -1 }
        return fd
    }

    static func descriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test func dripFedConnectionsFromOneAddressAreCappedAndEveryoneElseIsServed() async throws {
        let directory = try Paths.temporaryDirectory("relay-hostile")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("\(ShareLinkEndToEndTests.secret)\n", to: secretFile)
        let (relay, port) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile)
        defer { relay.terminate(); relay.waitUntilExit() }
        let baseline = Self.descriptors(relay.processIdentifier)

        // 200 slowloris connections from one address, each dripping a request line byte by byte.
        var held: [Int32] = []
        for _ in 0..<200 {
            let fd = Self.connect(from: "127.0.0.2", port: port)
            if fd >= 0 { held.append(fd) }
        }
        defer { for fd in held { close(fd) } }
        let line = Array("GET /s/".utf8)
        for round in 0..<3 {
            for fd in held { _ = withUnsafeBytes(of: line[round]) { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) } }
            try await Task.sleep(for: .milliseconds(200))
        }
        // MHD keeps 64 from one address (the per-address limit) and closes the rest.
        let during = Self.descriptors(relay.processIdentifier)
        #expect(during <= baseline + 64 + 4, "descriptors: \(baseline) before, \(during) with 200 drip-fed connections")

        // A device from another address posts, a viewer from another reads the page.
        let secrets = ShareLinkSecrets.random()
        let now = Int64(Date().timeIntervalSince1970)
        let post = RelayPost(shareID: secrets.idText, seq: 1, kind: .update, expiresAt: now + 600, timestamp: now,
                             body: try LinkSealing.seal(Array("{}".utf8), secrets: secrets, seq: 1))
        let posted = try LoopbackHTTP.request(port: port, "/api/v1/events", method: "POST",
                                              headers: post.headers(secret: Array(ShareLinkEndToEndTests.secret.utf8)), body: post.body)
        #expect(posted.status == 200)
        #expect(try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)").status == 200)
    }

    @Test func garbageRequestsGetAnswersAndTheRelayStaysUp() async throws {
        let directory = try Paths.temporaryDirectory("relay-hostile")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("\(ShareLinkEndToEndTests.secret)\n", to: secretFile)
        let (relay, port) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile)
        defer { relay.terminate(); relay.waitUntilExit() }
        var generator = SystemRandomNumberGenerator()
        let now = Int64(Date().timeIntervalSince1970)
        for index in 0..<150 {
            let fd = Self.connect(from: "127.0.0.\(3 + index % 50)", port: port)
            guard fd >= 0 else { continue }
            let noise = (0..<Int.random(in: 1...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let prefixes = ["", "GET ", "POST /api/v1/events HTTP/1.1\r\nContent-Length: 5\r\nLink-Seq: -1\r\n", "GET /s/", "GET /s/AAAAAAAAAAAAAAAAAAAAAA/events HTTP/1.1\r\nLast-Event-ID: "]
            let bytes = Array(prefixes[index % prefixes.count].utf8) + noise
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(fd)
        }
        // Posts with every field wrong, one at a time: a 4xx each, never a crash.
        let id = ShareLinkSecrets.random().idText
        let bad: [[String]] = [
            ["Link-Share: \(id)", "Link-Seq: 0", "Link-Kind: update", "Link-Expires-At: \(now)", "Link-Timestamp: \(now)", "Link-Signature: v1,AAAA"],
            ["Link-Share: short", "Link-Seq: 1", "Link-Kind: update", "Link-Expires-At: \(now)", "Link-Timestamp: \(now)", "Link-Signature: v1,AAAA"],
            ["Link-Share: \(id)", "Link-Seq: 18446744073709551616", "Link-Kind: update", "Link-Expires-At: \(now)", "Link-Timestamp: \(now)", "Link-Signature: x"],
            ["Link-Share: \(id)", "Link-Seq: 1", "Link-Kind: nope", "Link-Expires-At: \(now)", "Link-Timestamp: \(now)", "Link-Signature: x"],
            ["Link-Share: \(id)", "Link-Seq: 1", "Link-Kind: update", "Link-Expires-At: 9223372036854775807", "Link-Timestamp: -9223372036854775808", "Link-Signature: v1,"],
        ]
        for headers in bad {
            let status = try LoopbackHTTP.request(port: port, "/api/v1/events", method: "POST", headers: headers, body: Array(repeating: 1, count: 40)).status
            #expect((400..<500).contains(status), "\(headers): \(status)")
        }
        #expect(try LoopbackHTTP.request(port: port, "/healthz").status == 200)
        #expect(relay.isRunning)
    }

    /// What the relay and the page parse (ids, keys, links, secrets, sealed events), on random input:
    /// never a crash, never an opened event.
    @Test func randomInputToTheParsersIsRefusedWithoutACrash() {
        var generator = SystemRandomNumberGenerator()
        let secrets = ShareLinkSecrets.random()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=#:\n ".utf8)
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...96, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(decoding: (0..<count).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            _ = Base64URL.decode(text)
            _ = ShareLinkSecrets(link: "https://relay/s/" + text)
            _ = ShareLinkSecrets(link: text)
            _ = RelaySecrets.parse(bytes)
            #expect(LinkSealing.open(bytes, secrets: secrets, seq: UInt64.random(in: 0...UInt64.max, using: &generator)) == nil)
        }
    }
}

/// Slowloris against MHD's idle timeout: a request dripped a byte at a time never idles, so the
/// relay gives each request a total deadline (`requestDeadlineSeconds`).
@Suite struct RelayRequestDeadlineTests {
    /// Bytes sent one every `interval` until the server closes (send fails or recv sees the end),
    /// at most `limit`; returns how long the connection lived.
    static func drip(port: UInt16, _ text: String, every interval: Duration, limit: Duration) async throws -> Duration {
        let fd = RelayHostileTests.connect(from: "127.0.0.1", port: port)
        #expect(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 0, tv_usec: 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let start = ContinuousClock.now
        let bytes = Array(text.utf8)
        var index = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now - start < limit {
            let sent = withUnsafeBytes(of: bytes[index % bytes.count]) { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            index += 1
            if recv(fd, &buffer, buffer.count, 0) == 0 { break }
            try await Task.sleep(for: interval)
        }
        return ContinuousClock.now - start
    }

    @Test func aRequestDrippedWithinTheIdleTimeoutIsCutAtItsDeadlineAndAViewersStreamIsNot() async throws {
        var options = RelayServer.Options(host: "127.0.0.1", port: 0, secrets: [Array(ShareLinkEndToEndTests.secret.utf8)])
        options.requestDeadlineSeconds = 3
        options.heartbeatSeconds = 1
        let server = RelayServer(options: options)
        try server.start()
        defer { server.stop() }

        // Headers dripped at 4 bytes a second (the idle timeout is 45 s): cut after 3 s (the sweeper
        // looks every second), not kept for the 12 s it would go on.
        let headers = try await Self.drip(port: server.port, "GET /healthz HTTP/1.1\r\nX-Slow: " + String(repeating: "a", count: 200),
                                          every: .milliseconds(250), limit: .seconds(12))
        #expect(headers >= .seconds(3) && headers < .seconds(6), "a dripped request lived \(headers)")
        // A body dripped after its headers came in at once: cut alike.
        let secrets = ShareLinkSecrets.random()
        let fd = RelayHostileTests.connect(from: "127.0.0.1", port: server.port)
        defer { close(fd) }
        let head = Array("POST /api/v1/events HTTP/1.1\r\nHost: x\r\nLink-Share: \(secrets.idText)\r\nContent-Length: 9000\r\n\r\n".utf8)
        _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let start = ContinuousClock.now
        var cut = false
        for _ in 0..<48 where !cut {
            let sent = withUnsafeBytes(of: UInt8(ascii: "x")) { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            var byte: UInt8 = 0
            cut = sent <= 0 || recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
            if !cut { try await Task.sleep(for: .milliseconds(250)) }
        }
        #expect(cut && ContinuousClock.now - start < .seconds(6), "a dripped body lived \(ContinuousClock.now - start)")

        // A viewer's stream, answered at once, outlives the deadline.
        let now = Int64(Date().timeIntervalSince1970)
        let post = RelayPost(shareID: secrets.idText, seq: 1, kind: .update, expiresAt: now + 600, timestamp: now,
                             body: try LinkSealing.seal(Array("{}".utf8), secrets: secrets, seq: 1))
        #expect(server.store.accept(post, signer: 0, now: now) == .stored)
        let started = ContinuousClock.now
        let stream = try LoopbackHTTP.request(port: server.port, "/s/\(secrets.idText)/events", timeoutSeconds: 6)
        #expect(ContinuousClock.now - started >= .seconds(5), "the stream ended after \(ContinuousClock.now - started)")
        #expect(stream.text.components(separatedBy: ": heartbeat").count >= 4, "\(stream.text)")
    }
}
