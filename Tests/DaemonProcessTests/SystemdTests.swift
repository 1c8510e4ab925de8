import Foundation
import Testing
import TestSupport

/// sd_notify as systemd sees it: a datagram socket the test binds, named by NOTIFY_SOCKET.
@Suite(.serialized) struct SystemdTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    @Test(arguments: [false, true])
    func readyAndWatchdogMessagesArriveOnTheNotifySocket(abstract: Bool) async throws {
        let harness = try DaemonHarness()
        let name = abstract ? "@livelocd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                            : harness.directory.appendingPathComponent("notify.sock").path
        let receiver = try DatagramReceiver(name)
        defer { receiver.close() }
        let daemon = try await harness.launch(log: Self.drive, environment: ["NOTIFY_SOCKET": name, "WATCHDOG_USEC": "400000"])
        var messages: [String] = []
        while messages.filter({ $0.contains("WATCHDOG=1") }).count < 2, let message = try await receiver.receive(timeoutSeconds: 5) {
            messages.append(message)
            if messages.count > 50 { break }
        }
        #expect(messages.first?.hasPrefix("READY=1\nSTATUS=") == true)
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 2)
        daemon.send(SIGTERM)
        // Read on while it stops, as systemd does: a queue left full would drop STOPPING=1 (the
        // daemon never waits for room: aNotifySocketNobodyReads…).
        async let rest = { () async throws -> [String] in
            var rest: [String] = []
            while rest.count < 500, !rest.contains("STOPPING=1"), let message = try await receiver.receive(timeoutSeconds: 10) {
                rest.append(message)
            }
            return rest
        }()
        let status = await daemon.waitForExit()
        #expect(status == 0, "livelocd's log: \(daemon.lines(.stderr).joined(separator: " | "))")
        #expect(try await rest.contains("STOPPING=1"))
    }

    /// A notify socket nobody reads fills up (11 datagrams): the daemon drops its pings instead of
    /// waiting for room, and a SIGTERM still stops it at once.
    @Test func aNotifySocketNobodyReadsNeitherBlocksTheDaemonNorItsShutdown() async throws {
        let harness = try DaemonHarness()
        let name = harness.directory.appendingPathComponent("notify.sock").path
        let receiver = try DatagramReceiver(name)
        defer { receiver.close() }
        let daemon = try await harness.launch(log: Self.drive, environment: ["NOTIFY_SOCKET": name, "WATCHDOG_USEC": "100000"])
        try await Task.sleep(for: .seconds(2))  // 40 pings: the queue is full after 11
        daemon.send(SIGTERM)
        let signalled = ContinuousClock.now
        let status = await daemon.waitForExit(timeout: .seconds(15))
        #expect(status == 0, "livelocd's log: \(daemon.lines(.stderr).joined(separator: " | "))")
        #expect(ContinuousClock.now - signalled < .seconds(10))
        #expect(daemon.lines(.stderr).contains { $0.contains("sd_notify:") && $0.contains("EAGAIN") },
                "\(daemon.lines(.stderr).joined(separator: " | "))")
    }

    @Test func socketActivationServesTheSocketSystemdPasses() async throws {
        let harness = try DaemonHarness()
        let activate = "/usr/bin/systemd-socket-activate"
        try #require(FileManager.default.isExecutableFile(atPath: activate))
        let activated = harness.directory.appendingPathComponent("activated.sock").path
        let unused = harness.directory.appendingPathComponent("unused.sock").path
        let daemonArguments = harness.arguments(log: Self.drive).map { $0 == harness.socketPath ? unused : $0 }
        // systemd-socket-activate execs livelocd in its own process: run it under a shell, so that
        // the test's child never changes its program; the shell names the daemon's pid.
        let script = "\"$@\" & child=$!; echo \"daemon pid $child\" >&2; wait $child"
        let daemon = try await DaemonProcess(URL(fileURLWithPath: "/bin/sh"),
                                       ["-c", script, "sh", activate, "-l", activated, Paths.executable("livelocd").path] + daemonArguments)
        try await daemon.waitForLine(.stderr) { $0.contains("Listening on") }
        let result = try await runProcess(Paths.executable("liveloc"), ["status", "--socket", activated])
        #expect(result.status == 0, "\(result.stderr)")
        try await daemon.waitForLine(.stderr) { $0.contains("(socket activation)") }
        #expect(!FileManager.default.fileExists(atPath: unused))
        let announced = try await daemon.waitForLine(.stderr) { $0.hasPrefix("daemon pid ") }
        let pid = try #require(Int32(announced.dropFirst("daemon pid ".count)))
        kill(pid, SIGTERM)
        try await daemon.waitForLine(.stderr) { $0.hasPrefix("livelocd: stopped") }
    }

    @Test func unitsPassVerifyAndTheSecurityThreshold() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"))
        let result = try await runProcess(Paths.packageRoot.appendingPathComponent("scripts/check-units"),
                                          [Paths.executable("livelocd").path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("verify: no warnings"))
        #expect(result.stdout.contains("Overall exposure level"))
        // The share link relay's unit too, its binary being built beside livelocd's.
        #expect(result.stdout.contains("Overall exposure level for livelocd-relay.service"))
    }
}

/// A bound Unix datagram socket (a path, or an abstract name starting with `@`).
final class DatagramReceiver: Sendable {
    let fd: Int32

    init(_ name: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(2 + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// One datagram, or nil after `timeoutSeconds` without one.
    func receive(timeoutSeconds: Int) async throws -> String? {
        try await onThread { self.receiveBlocking(timeoutSeconds: timeoutSeconds) }
    }

    private func receiveBlocking(timeoutSeconds: Int) -> String? {
        var limit = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    func close() { _ = Glibc.close(fd) }
}
