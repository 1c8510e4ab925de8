import Foundation
import Testing
import TestSupport

/// The control socket's protocol and access checks, against the real daemon.
@Suite(.serialized) struct ControlSocketTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test func garbageOversizedAndUnknownRequestsGetErrorRepliesAndTheDaemonKeepsServing() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let replies = try await harness.exchange(Array("garbage\n{\"v\":1,\"op\":\"launch\"}\n{\"v\":9,\"op\":\"status\"}\n{\"v\":1,\"op\":\"start\",\"duration\":\"2h\"}\n[1,2]\n{\"v\":1,\"op\":\"status\"}\n".utf8))
        let codes = replies.map { (jsonObject($0)?["error"] as? [String: Any])?["code"] as? String ?? "ok" }
        #expect(codes == ["bad-request", "unknown-op", "unsupported-version", "bad-duration", "bad-request", "ok"])
        #expect(replies.allSatisfy { jsonObject($0)?["v"] as? Int == 1 })

        let oversized = try await harness.exchange([UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024))
        #expect(oversized.count == 1)
        #expect((jsonObject(oversized[0])?["error"] as? [String: Any])?["code"] as? String == "too-large")

        let status = try await harness.liveloc(["status"])
        #expect(status.status == 0)
        #expect(daemon.lines(.stderr).allSatisfy { !$0.contains("failed") })
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }

    @Test func anIdleConnectionGetsATimeoutReplyAndIsClosed() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let started = ContinuousClock.now
        let replies = try await harness.exchange(Array("{\"v\":1,".utf8), halfClose: false, timeout: 15)
        let waited = ContinuousClock.now - started
        #expect((jsonObject(replies.first ?? "")?["error"] as? [String: Any])?["code"] as? String == "timeout")
        #expect(waited >= .seconds(4) && waited < .seconds(10))
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    @Test func manyClientsAtOnceAreAllServed() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        // A silent client holds its connection open meanwhile; the others are not held up by it.
        let silent = Task { try await harness.exchange(Array("{".utf8), halfClose: false, timeout: 15) }
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<32 {
                group.addTask { try await harness.exchange(Array("{\"v\":1,\"op\":\"status\"}\n".utf8)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0.count == 1 && jsonObject($0[0])?["ok"] as? Bool == true })
        _ = try await silent.value
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    /// Needs root, to run liveloc as nobody (setpriv).
    @Test(.enabled(if: getuid() == 0)) func aCallerOutsideTheControlGroupIsRefusedButMayReadAPublicStatus() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, extra: ["--control.status_public", "true", "--control.group", "root"])
        let status = try await harness.liveloc(["status"], asNobody: true)
        #expect(status.status == 0, "\(status.stderr)")
        let start = try await harness.liveloc(["start", "--duration", "15m"], asNobody: true)
        #expect(start.status == 1)
        #expect(start.stderr.contains("(forbidden)"))
        #expect(start.stderr.split(separator: "\n").count == 1)
        #expect(try await harness.liveloc(["status", "--json"]).stdout.contains("\"share\"") == false)
        try await daemon.waitForLine(.stderr) { $0.contains("refused start from uid 65534") }
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    @Test(.enabled(if: getuid() == 0)) func aCallerWithoutAccessToThePrivateSocketGetsOneLine() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let mode = try FileManager.default.attributesOfItem(atPath: harness.socketPath)[.posixPermissions] as? Int
        #expect(mode == 0o660)
        let result = try await harness.liveloc(["status"], asNobody: true)
        #expect(result.status == 1)
        #expect(result.stderr.contains("not allowed to control livelocd"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
    }

    /// A second livelocd given the first one's live socket refuses in one line (exit 1) and leaves it
    /// alone: the first still answers and can be stopped. A stale socket file (nobody listens) is taken.
    @Test func aSecondDaemonDoesNotTakeOverALiveControlSocketButReplacesAStaleOne() async throws {
        let harness = try DaemonHarness()
        let first = try await harness.launch(log: Self.drive)
        #expect(try await harness.liveloc(["start", "--duration", "15m"]).status == 0)
        let second = try DaemonHarness()
        var arguments = second.arguments(log: Self.drive)
        arguments[arguments.firstIndex(of: "--control.socket")! + 1] = harness.socketPath
        let refused = try await runProcess(Paths.executable("livelocd"), arguments, timeout: .seconds(20))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("another livelocd answers there"), "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").filter { $0.contains("control socket") }.count == 1, "\(refused.stderr)")
        let stop = try await harness.liveloc(["stop"])
        #expect(stop.status == 0 && stop.stdout.hasPrefix("stopped "), "\(stop.stdout)\(stop.stderr)")
        // SIGKILL leaves the socket file behind with nobody listening: the next start takes it.
        await first.kill9()
        #expect(FileManager.default.fileExists(atPath: harness.socketPath))
        let next = try await harness.launch(log: Self.drive)
        #expect(try await harness.liveloc(["status"]).status == 0)
        next.send(SIGTERM)
        #expect(await next.waitForExit() == 0)
        // Its last line says what the journal keeps: here no share (the first one's was stopped).
        #expect(next.lines(.stderr).last?.hasSuffix("stopped; no share was active") == true, "\(next.lines(.stderr))")
    }
}
