import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ShareLink
import Testing
import TestSupport

/// The relay (`livelocd-relay`, the real program) and `liveloc share --link-relay` on loopback.
@Suite struct ShareLinkEndToEndTests {
    static let secret = "relay-test-secret-0123456789abcdefABCDEF"

    /// Starts livelocd-relay on a free loopback port; returns the process and the port.
    static func startRelay(secretFile: URL, port: UInt16 = 0, extra: [String] = []) async throws -> (Process, UInt16) {
        let process = Process()
        process.executableURL = Paths.executable("livelocd-relay")
        process.arguments = ["--listen", "127.0.0.1:\(port)", "--secret-file", secretFile.path] + extra
        // Its stderr to a file: a pipe nobody reads after the first line could fill and stall it.
        let log = secretFile.deletingLastPathComponent().appendingPathComponent("relay-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try await process.runAsTestChild()
        var text = ""
        for _ in 0..<100 where !text.contains("\n") {
            try await Task.sleep(for: .milliseconds(50))
            text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        guard let range = text.range(of: "listening on 127.0.0.1:"),
              let port = UInt16(text[range.upperBound...].prefix(while: \.isNumber)) else {
            process.terminate()
            throw RelayStartError(text: text)
        }
        return (process, port)
    }

    @Test func aShareReachesTheRelaySealedAndItsLinkOpensIt() async throws {
        let directory = try Paths.temporaryDirectory("share-link")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("# devices\n\(Self.secret)\n", to: secretFile)
        let (relay, port) = try await Self.startRelay(secretFile: secretFile)
        defer { relay.terminate(); relay.waitUntilExit() }

        let result = try await runProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--replay", Paths.fixture("fix-loss.nmea").path, "--speed", "0",
            "--link-relay", "http://127.0.0.1:\(port)", "--link-secret-file", secretFile.path,
            "--state-directory", directory.appendingPathComponent("state").path,  // its own: other tests share too
        ], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.stderr)")
        let linkLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("link: ") }
        #expect(linkLines.count == 1, "\(result.stderr)")
        let link = String(linkLines.first?.dropFirst(6) ?? "")
        let secrets = try #require(ShareLinkSecrets(link: link))
        #expect(link.hasPrefix("http://127.0.0.1:\(port)/s/\(secrets.idText)#"))

        // The share ended: the relay keeps its last position and its end, and closes the stream.
        let page = try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)")
        #expect(page.status == 200)
        #expect(page.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(page.header("Cache-Control") == "no-store")
        let stream = try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events")
        #expect(stream.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        let events = SSEEvent.parse(stream.text)
        #expect(events.map(\.event) == ["update", "end"], "\(stream.text)")
        let printed = result.stdoutLines
        let opened = events.map { event in
            LinkSealing.open(Base64URL.decode(event.data) ?? [], secrets: secrets, seq: event.id).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(opened == printed.suffix(2).map { Optional($0) })
        // The relay held ciphertext only: no coordinate, no event name, nowhere in what it sends.
        #expect(!stream.text.contains("latitude") && !stream.text.contains("updated"))
        let wrongKey = ShareLinkSecrets(id: secrets.id, key: ShareLinkSecrets.random().key)!
        #expect(events.allSatisfy { LinkSealing.open(Base64URL.decode($0.data) ?? [], secrets: wrongKey, seq: $0.id) == nil })

        // Nor in its memory: no coordinate the share sent, not the key (as text or bytes).
        let coordinates = Set(printed.compactMap { line -> String? in
            guard let range = line.range(of: #""latitude":"#) else { return nil }
            return String(line[range.upperBound...].prefix(while: { $0 != "," }))
        })
        #expect(!coordinates.isEmpty)
        let memory = try Self.memory(of: relay.processIdentifier)
        #expect(memory.count > 1 << 20, "\(memory.count) bytes read")
        for needle in coordinates.map({ Array($0.utf8) }) + [Array(secrets.keyText.utf8), secrets.key] {
            let found = Self.contains(memory, needle)
            #expect(!found, "relay memory holds \(needle.count) bytes it must not")
        }
        let findsWhatIsThere = Self.contains(memory, Array(secrets.idText.utf8))
        #expect(findsWhatIsThere, "the search finds what is there (\(memory.count) bytes read)")

        // Unknown ids: one uniform 404; a malformed one too.
        let unknown = try LoopbackHTTP.request(port: port, "/s/\(ShareLinkSecrets.random().idText)")
        let malformed = try LoopbackHTTP.request(port: port, "/s/nope")
        #expect(unknown.status == 404 && malformed.status == 404 && unknown.text == malformed.text)
    }

    /// Every page `pid` has in memory (or swapped out) in its writable mappings (heap, stacks,
    /// anonymous memory), as root reads it. /proc/PID/pagemap says which pages are there, so the read
    /// costs what the process holds, not what it reserved: a ThreadSanitizer build reserves hundreds of
    /// MiB in small mappings it never touches, and reading all of them hung the test under TSan.
    static func memory(of pid: Int32) throws -> [UInt8] {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        // Read to the end: String(contentsOfFile:) gives the first 4 KiB of a /proc file, which was
        // the whole map of a normal build but not of a sanitized one (the heap was past the cut).
        guard let maps = procFileText("/proc/\(pid)/maps") else { throw CocoaError(.fileReadNoPermission) }
        let mem = open("/proc/\(pid)/mem", O_RDONLY), pagemap = open("/proc/\(pid)/pagemap", O_RDONLY)
        defer { close(mem); close(pagemap) }
        guard mem >= 0, pagemap >= 0 else { throw CocoaError(.fileReadNoPermission) }
        var memory: [UInt8] = []
        var page = [UInt8](repeating: 0, count: pageSize)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, fields[1].hasPrefix("rw") else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { Int($0, radix: 16) }
            guard bounds.count == 2, bounds[1] - bounds[0] <= 256 << 20 else { continue }
            // One 64-bit entry per page: bit 63 present, bit 62 swapped.
            var entries = [UInt64](repeating: 0, count: (bounds[1] - bounds[0]) / pageSize)
            let wanted = entries.count * 8
            let got = entries.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, wanted, off_t(bounds[0] / pageSize * 8)) }
            guard got == wanted else { continue }
            for (index, entry) in entries.enumerated() where entry & (0b11 << 62) != 0 {
                let read = page.withUnsafeMutableBytes { pread(mem, $0.baseAddress, pageSize, off_t(bounds[0] + index * pageSize)) }
                if read == pageSize { memory += page }
            }
        }
        return memory
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        // memchr for the first byte, memcmp for the rest (memmem needs _GNU_SOURCE; a Swift loop
        // over megabytes is slow in a debug build).
        guard let first = needle.first, needle.count <= haystack.count else { return false }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { wanted in
                var offset = 0
                let last = hay.count - wanted.count
                while offset <= last, let found = memchr(hay.baseAddress! + offset, Int32(first), last - offset + 1) {
                    if memcmp(found, wanted.baseAddress!, wanted.count) == 0 { return true }
                    offset = hay.baseAddress!.distance(to: UnsafeRawPointer(found)) + 1
                }
                return false
            }
        }
    }

    @Test func forgedStaleAndOversizedPostsAreRefused() async throws {
        let directory = try Paths.temporaryDirectory("share-link")
        let secretFile = directory.appendingPathComponent("secret")
        try writeSecretFile("\(Self.secret)\n", to: secretFile)
        let (relay, port) = try await Self.startRelay(secretFile: secretFile)
        defer { relay.terminate(); relay.waitUntilExit() }
        let secrets = ShareLinkSecrets.random()
        let now = Int64(Date().timeIntervalSince1970)
        let sealed = try LinkSealing.seal(Array("{}".utf8), secrets: secrets, seq: 1)
        func send(_ post: RelayPost, secret: String = Self.secret) throws -> Int {
            try LoopbackHTTP.request(port: port, "/api/v1/events", method: "POST", headers: post.headers(secret: Array(secret.utf8)), body: post.body).status
        }
        let post = RelayPost(shareID: secrets.idText, seq: 1, kind: .update, expiresAt: now + 600, timestamp: now, body: sealed)
        #expect(try send(post, secret: "another-secret-0123456789abcdefABCDEFGH") == 401)
        var stale = post
        stale.timestamp = now - 3600
        #expect(try send(stale) == 401)
        #expect(try send(post) == 200)
        #expect(try send(post) == 200)  // a replay: acknowledged, nothing new
        var tampered = post
        tampered.seq = 2
        let headers = post.headers(secret: Array(Self.secret.utf8)).map { $0.hasPrefix("Link-Seq") ? "Link-Seq: 2" : $0 }
        #expect(try LoopbackHTTP.request(port: port, "/api/v1/events", method: "POST", headers: headers, body: tampered.body).status == 401)
        // A 100 MB body: refused from its Content-Length, before it is read.
        var big = post
        big.seq = 3
        big.body = [UInt8](repeating: 0, count: 1024)
        #expect(try LoopbackHTTP.request(port: port, "/api/v1/events", method: "POST", headers: big.headers(secret: Array(Self.secret.utf8)),
                                         body: big.body, claimedLength: 100 << 20).status == 413)
        #expect(try LoopbackHTTP.request(port: port, "/healthz").status == 200)
    }
}

struct RelayStartError: Error, CustomStringConvertible {
    var text: String
    var description: String { "livelocd-relay did not start: \(text)" }
}
