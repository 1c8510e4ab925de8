import Foundation
import Testing
import TestSupport

/// Callers of the control socket cannot starve the daemon: their connections are bounded overall
/// and per uid, a request must arrive whole within 5 s, and the descriptors the daemon needs stay
/// free. Real daemon, real hostile callers (scripts/control-flood.py).
@Suite(.serialized) struct ControlLimitsTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path
    static let flood = Paths.packageRoot.appendingPathComponent("scripts/control-flood.py").path

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// Needs root: the flood runs as `nobody` (uid 65534), an unprivileged caller.
    @Test(.enabled(if: getuid() == 0, "needs root to run the flood as another uid"))
    func twoThousandIdleConnectionsFromOneUnprivilegedCallerLeaveStatusAnsweringEventsFlowingAndDescriptorsBounded() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 10, extra: ["--control.status_public", "true"])
        let id = try await harness.liveloc(["start", "--duration", "8h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine { jsonObject($0)?["seq"] as? Int == 3 }
        let baseline = Self.openDescriptors(daemon.pid)

        let flood = try await DaemonProcess(URL(fileURLWithPath: "/usr/bin/python3"), [
            Self.flood, "hold", "--socket", harness.socketPath, "--connections", "2000", "--seconds", "8", "--uid", "65534"])
        try await flood.waitForLine(.stdout, timeout: .seconds(30)) { $0 == "holding" }
        let eventsAtStart = daemon.lines(.stdout).count
        var mostDescriptors = 0
        var statusAnswers = 0
        for round in 0..<10 {
            try await Task.sleep(for: .milliseconds(500))
            mostDescriptors = max(mostDescriptors, Self.openDescriptors(daemon.pid))
            if round % 3 == 0 {
                let status = try await harness.liveloc(["status"])
                #expect(status.status == 0, "status from root during the flood: \(status.stderr)")
                if status.status == 0 && status.stdout.contains(id.prefix(8)) { statusAnswers += 1 }
            }
        }
        let eventsDuringFlood = daemon.lines(.stdout).count - eventsAtStart
        #expect(await flood.waitForExit() == 0)
        let counts = try #require(flood.lines(.stdout).last.flatMap(jsonObject))

        _ = try await harness.liveloc(["stop"])
        try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)

        #expect(statusAnswers == 4)
        // The caller got far more refusals than the 8 connections it may hold.
        #expect((counts["connects"] as? Int ?? 0) >= 2000)
        #expect((counts["busy"] as? Int ?? 0) >= 1000, "\(counts)")
        // Its 8 admitted connections, plus one being refused, plus liveloc's: nowhere near 2,000.
        #expect(mostDescriptors <= baseline + 12, "descriptors: \(baseline) before, up to \(mostDescriptors) during the flood")
        // The share went on: events kept coming, every seq once and in order, then its end.
        #expect(eventsDuringFlood >= 10)
        let events = daemon.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
        #expect(events.compactMap { $0["seq"] as? Int } == Array(1...events.count))
        #expect(events.last?["event"] as? String == "ended")
        // One log line for the refusals, not thousands (the count follows after a minute).
        let refusals = daemon.lines(.stderr).filter { $0.contains("refused") && $0.contains("uid 65534") }
        #expect(refusals.count == 1, "\(refusals.prefix(5))")
    }

    @Test func aRequestDrippedOneByteEvery50msIsCutFiveSecondsAfterItsFirstByte() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive)
        let (reply, elapsed, bytesSent) = try await onThread { try Self.drip(path: harness.socketPath) }
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()
        #expect((jsonObject(reply)?["error"] as? [String: Any])?["code"] as? String == "timeout", "\(reply)")
        // Cut at 5 s; a deadline that restarted with every byte would not cut while the drip goes on
        // (12 s). The upper bound leaves room for timers that fire late on a loaded machine.
        #expect(elapsed >= .milliseconds(4800) && elapsed < .seconds(11), "cut after \(elapsed)")
        #expect(bytesSent >= 80, "only \(bytesSent) bytes were sent: the drip did not go on")
    }

    /// Sends `{"v":1,` then a space every 50 ms (the line never ends) until the daemon answers or
    /// 12 s pass; returns its reply, the time from the first byte to the reply, and the bytes sent.
    static func drip(path: String) throws -> (String, Duration, Int) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let first = ContinuousClock.now
        var sent = 0
        var bytes = Array(#"{"v":1,"#.utf8)
        while ContinuousClock.now - first < .seconds(12) {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 { sent += written }
            bytes = [UInt8(ascii: " ")]
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 50) > 0 {
                let elapsed = ContinuousClock.now - first
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                return (String(decoding: buffer[..<max(0, count)], as: UTF8.self), elapsed, sent)
            }
        }
        return ("", ContinuousClock.now - first, sent)
    }

    @Test func aLowDescriptorLimitShrinksTheConnectionLimitsToFit() async throws {
        let harness = try DaemonHarness()
        let daemon = try await DaemonProcess(URL(fileURLWithPath: "/bin/sh"),
                                       ["-c", "ulimit -n 120 && exec \"$0\" \"$@\"", Paths.executable("livelocd").path]
                                           + harness.arguments(log: Self.drive))
        let line = try await daemon.waitForLine(.stderr) { $0.contains("control connections") }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        let connections = line.split(separator: " ").drop { $0 != "most" }.dropFirst().first.flatMap { Int($0) } ?? 0
        #expect(connections > 4 && connections < 64, "\(line)")
        #expect(line.contains("descriptor limit 120"))
    }

    @Test func aDescriptorLimitTooLowToServeStopsTheDaemonWithOneLine() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"),
                                          ["-c", "ulimit -n 48 && exec \"$0\" \"$@\"", Paths.executable("livelocd").path]
                                              + harness.arguments(log: Self.drive))
        #expect(result.status == 1)
        let failure = result.stderr.split(separator: "\n").filter { $0.contains("descriptor limit") }
        #expect(failure.count == 1, "\(result.stderr)")
        #expect(failure.first?.contains("LimitNOFILE") == true)
    }
}
