import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ShareLink
import Testing
import TestSupport

/// Two relays (`livelocd-relay`, the real program) behind HAProxy (Debian's `haproxy`), with the
/// README's configuration: the share's id is hashed, so that a device's posts and its viewers meet
/// on the same relay, and shares spread over both. On loopback; the README's ports are swapped for
/// free ones, nothing else is changed.
@Suite struct RelaysBehindHAProxyTests {
    static let haproxy = URL(fileURLWithPath: "/usr/sbin/haproxy")

    /// The README's HAProxy configuration: the fenced block that begins with `# HAProxy`.
    static func readmeConfiguration() throws -> String {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```\n")
        return try #require(blocks.first { $0.hasPrefix("# HAProxy") }, "README.md has no block beginning '# HAProxy'")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: haproxy.path), "Debian's haproxy (scripts/install-deps)"))
    func aSharesPostsAndViewersMeetOnOneRelayAndSharesSpreadOverBoth() async throws {
        let directory = try Paths.temporaryDirectory("haproxy")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("\(ShareLinkEndToEndTests.secret)\n", to: secretFile)
        let (relay1, port1) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile, extra: ["--behind-proxy"])
        defer { relay1.endBlocking() }
        let (relay2, port2) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile, extra: ["--behind-proxy"])
        defer { relay2.endBlocking() }

        let readme = try Self.readmeConfiguration()
        for address in ["127.0.0.1:8080", "127.0.0.1:8765", "127.0.0.1:8766"] {
            #expect(readme.components(separatedBy: address).count == 2, "the README's configuration names \(address) once")
        }
        let proxyPort = try GPSFake.freeLoopbackPort()
        let configuration = readme.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(proxyPort)")
            .replacingOccurrences(of: "127.0.0.1:8765", with: "127.0.0.1:\(port1)")
            .replacingOccurrences(of: "127.0.0.1:8766", with: "127.0.0.1:\(port2)")
        let configurationFile = directory.appendingPathComponent("haproxy.cfg")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        let proxy = Process()
        proxy.executableURL = Self.haproxy
        proxy.arguments = ["-db", "-f", configurationFile.path]  // in the foreground, logs on stderr
        let log = directory.appendingPathComponent("haproxy.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        proxy.standardError = try FileHandle(forWritingTo: log)
        proxy.standardOutput = FileHandle.nullDevice
        try await proxy.runAsTestChild()
        defer { proxy.endBlocking() }
        var up = false
        for _ in 0..<100 where !up {  // at most 5 s
            up = (try? LoopbackHTTP.request(port: proxyPort, "/healthz", timeoutSeconds: 2).status) == 200
            if !up { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(up, "haproxy did not answer: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")

        // A device (`liveloc share`, the real program) posts through the proxy; its link, opened
        // through the proxy, shows what it shared, from the one relay that has it.
        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path, "--speed", "0",
            "--link-relay", "http://127.0.0.1:\(proxyPort)", "--link-secret-file", secretFile.path,
            "--state-directory", directory.appendingPathComponent("state").path,  // its own: other tests share too
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let link = String(result.stderr.split(separator: "\n").first { $0.hasPrefix("link: ") }?.dropFirst(6) ?? "")
        let device = try #require(ShareLinkSecrets(link: link), "\(result.stderr)")
        let deviceStream = try LoopbackHTTP.request(port: proxyPort, "/s/\(device.idText)/events")
        let deviceEvents = SSEEvent.parse(deviceStream.text)
        #expect(deviceEvents.map(\.event) == ["update", "end"], "\(deviceStream.text)")
        let opened = deviceEvents.map { event in
            LinkSealing.open(Base64URL.decode(event.data) ?? [], secrets: device, seq: event.id).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(opened == result.stdoutLines.suffix(2).map { Optional($0) })
        let deviceDirect = [try LoopbackHTTP.request(port: port1, "/s/\(device.idText)").status,
                            try LoopbackHTTP.request(port: port2, "/s/\(device.idText)").status]
        #expect(deviceDirect.sorted() == [200, 404], "the device's share on exactly one relay: \(deviceDirect)")

        // Eight shares of fixed ids (the hash is a function: the same spread every run), each a
        // device's update and end through the proxy, then its viewer's stream through the proxy.
        let secret = Array(ShareLinkEndToEndTests.secret.utf8)
        let now = Int64(Date().timeIntervalSince1970)
        var onRelay1 = 0, onRelay2 = 0
        for index in 0..<8 {
            let secrets = try #require(ShareLinkSecrets(id: [UInt8](repeating: UInt8(index * 31 + 7), count: ShareLinkSecrets.idByteCount),
                                                        key: [UInt8](repeating: 1, count: ShareLinkSecrets.keyByteCount)))
            let id = secrets.idText
            for (seq, kind) in [(UInt64(1), RelayPost.Kind.update), (2, .end)] {
                let post = RelayPost(shareID: id, seq: seq, kind: kind, expiresAt: now + 600, timestamp: now,
                                     body: try LinkSealing.seal(Array("{}".utf8), secrets: secrets, seq: seq))
                let status = try LoopbackHTTP.request(port: proxyPort, "/api/v1/events", method: "POST",
                                                      headers: post.headers(secret: secret), body: post.body).status
                #expect(status == 200, "share \(index) seq \(seq) through the proxy")
            }
            let stream = try LoopbackHTTP.request(port: proxyPort, "/s/\(id)/events", timeoutSeconds: 5)
            #expect(stream.status == 200, "share \(index)'s viewer through the proxy")
            #expect(SSEEvent.parse(stream.text).map(\.id) == [1, 2], "share \(index)'s viewer got its device's events")
            #expect(try LoopbackHTTP.request(port: proxyPort, "/s/\(id)").status == 200, "share \(index)'s page through the proxy")
            // Asked directly, one relay has the share and the other never heard of it.
            let direct1 = try LoopbackHTTP.request(port: port1, "/s/\(id)").status
            let direct2 = try LoopbackHTTP.request(port: port2, "/s/\(id)").status
            #expect([direct1, direct2].sorted() == [200, 404], "share \(index) on exactly one relay: \(direct1), \(direct2)")
            if direct1 == 200 { onRelay1 += 1 }
            if direct2 == 200 { onRelay2 += 1 }
        }
        #expect(onRelay1 > 0 && onRelay2 > 0, "the shares spread over both relays: \(onRelay1) and \(onRelay2)")
    }
}
