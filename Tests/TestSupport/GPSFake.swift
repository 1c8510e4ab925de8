import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real gpsd fed a log by gpsfake, on a free loopback port, for tests.
///
/// Runs `/usr/bin/python3 /usr/bin/gpsfake -1 -p -q -c SECONDS -P PORT -m PREFIX LOG` in its own
/// process group with its own `TMPDIR`, its gpsd under `ChildSpawner.prefix` (so that gpsd dies with
/// gpsfake, which dies with the test process): gpsfake waits about 1.4 s for clients, feeds the log (one sentence
/// every `secondsPerSentence`), and exits with its gpsd at the log's end. `stop()` ends the whole
/// group (gpsfake and gpsd). `restart()` starts a new gpsd on the same port, for reconnect tests.
public final class GPSFake: Sendable {
    /// The loopback TCP port gpsd listens on (127.0.0.1).
    public let port: UInt16
    public let log: URL
    public let secondsPerSentence: Double
    private let process: Process  // only signalled and waited for after start
    private let directory: URL

    /// Whether gpsfake and its gpsd can run here (Debian's python3-gps and gpsd installed).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/gpsfake")
            && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd")
    }

    private init(port: UInt16, log: URL, secondsPerSentence: Double, process: Process, directory: URL) {
        self.port = port
        self.log = log
        self.secondsPerSentence = secondsPerSentence
        self.process = process
        self.directory = directory
    }

    /// Starts gpsfake on `port` (a free one when nil) and returns once gpsd accepts connections
    /// (within `timeout`).
    /// - Throws: `GPSFakeError` when gpsfake exits early or gpsd does not listen in time.
    ///
    /// `leadIn` seconds of `$GPTXT` sentences are fed before the log: gpsfake feeds whether or not a
    /// client is watching yet, and on a loaded machine the client's first watch can come seconds
    /// late; the lead-in keeps the log's own fixes for after it is watching.
    public static func start(log: URL, secondsPerSentence: Double, port: UInt16? = nil,
                             leadIn: Duration = .seconds(3),
                             timeout: Duration = .seconds(30)) async throws -> GPSFake {
        let port = try port ?? freeLoopbackPort()
        let directory = try Paths.temporaryDirectory("gpsfake")
        let fedLog = try withLeadIn(log, seconds: Double(leadIn.components.seconds), secondsPerSentence: secondsPerSentence,
                                    in: directory)
        let process = Process()
        let gpsfake = ["/usr/bin/python3", "/usr/bin/gpsfake", "-1", "-p", "-q", "-c", String(secondsPerSentence),
                       "-P", String(port), "-m", ChildSpawner.prefix, fedLog.path]
        // gpsd started as root switches to its own user, and a change of user clears the
        // parent-death signal `-m` gave it: it would outlive a killed test process. Run gpsfake and
        // its gpsd as nobody instead (gpsd changes nothing then), in a directory nobody may write.
        process.executableURL = URL(fileURLWithPath: getuid() == 0 ? ChildSpawner.setpriv : gpsfake[0])
        process.arguments = getuid() == 0
            ? ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups"] + gpsfake
            : Array(gpsfake.dropFirst())
        if getuid() == 0 { chown(directory.path, nobody, nobody) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = directory.path
        process.environment = environment
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let stderrURL = directory.appendingPathComponent("gpsfake.stderr")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try await process.runAsTestChild()
        let fake = GPSFake(port: port, log: log, secondsPerSentence: secondsPerSentence,
                           process: process, directory: directory)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if !process.isRunning {
                let message = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
                await fake.stop()
                throw GPSFakeError.exited(status: process.terminationStatus, stderr: message)
            }
            if canConnect(port: port) { return fake }
            try await Task.sleep(for: .milliseconds(50))
        }
        await fake.stop()
        throw GPSFakeError.notListening(port: port, after: timeout)
    }

    /// A copy of `log` after `seconds` worth of TXT sentences (at most 2000), in `directory`.
    private static func withLeadIn(_ log: URL, seconds: Double, secondsPerSentence: Double, in directory: URL) throws -> URL {
        let count = min(2000, Int(seconds / max(secondsPerSentence, 0.0001)))
        guard count > 0 else { return log }
        let body = "GPTXT,01,01,02,livelocd test lead-in"
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let line = "$\(body)*\(String(format: "%02X", checksum))\r\n"
        var data = Data(String(repeating: line, count: count).utf8)
        data.append(try Data(contentsOf: log))
        let url = directory.appendingPathComponent(log.lastPathComponent)
        try data.write(to: url)
        return url
    }

    /// Stops this gpsfake and starts another with the same log and pacing on the same port.
    public func restart(timeout: Duration = .seconds(30)) async throws -> GPSFake {
        await stop()
        return try await GPSFake.start(log: log, secondsPerSentence: secondsPerSentence, port: port, timeout: timeout)
    }

    /// Whether gpsfake is still running (it exits at the log's end).
    public var isRunning: Bool { process.isRunning }

    /// Waits (up to `timeout`) for gpsfake to exit by itself at the log's end; returns whether it did.
    public func waitForExit(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning && clock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        return !process.isRunning
    }

    /// SIGTERM to the process group (gpsfake and its gpsd), SIGKILL after 3 s; waits until gpsfake
    /// exited and the port is free; removes the temporary directory. Safe to call more than once.
    public func stop() async {
        // Foundation starts the child as its own process group leader; signal the whole group so
        // that gpsd does not outlive gpsfake and hold the port.
        await process.end(grace: .seconds(3), wholeGroup: true)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The user and group gpsfake runs as when the tests run as root (65534: nobody, nogroup).
    private static let nobody: UInt32 = 65534

    /// A TCP port on 127.0.0.1 that nothing listens on now.
    public static func freeLoopbackPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw GPSFakeError.noFreePort(errno: errno) }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw GPSFakeError.noFreePort(errno: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw GPSFakeError.noFreePort(errno: errno) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    public static func canConnect(port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// Why a gpsfake could not be started.
public enum GPSFakeError: Error, CustomStringConvertible {
    case exited(status: Int32, stderr: String)
    case notListening(port: UInt16, after: Duration)
    case noFreePort(errno: Int32)

    public var description: String {
        switch self {
        case .exited(let status, let stderr):
            "gpsfake exited with status \(status) before gpsd listened: \(stderr.split(separator: "\n").last ?? "")"
        case .notListening(let port, let after): "gpsd did not listen on 127.0.0.1:\(port) within \(after)"
        case .noFreePort(let errno): "no free loopback port: \(String(cString: strerror(errno)))"
        }
    }
}
