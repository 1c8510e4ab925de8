import Foundation

/// A livelocd for one test: its own state directory and control socket under a temporary
/// directory (world-traversable, so that a test may call it as another user), replaying a log.
public struct DaemonHarness: Sendable {
    public let directory: URL
    public var socketPath: String { directory.appendingPathComponent("control.sock").path }
    public var stateDirectory: String { directory.appendingPathComponent("state").path }
    public var journalFile: String { stateDirectory + "/journal.sqlite" }

    /// The id of the share the journal holds as active; nil when it holds none. Read with python3's
    /// sqlite3, so only once livelocd has exited: while it runs it holds the journal's exclusive
    /// lock, and the read then throws ("database is locked") instead of answering.
    public func persistedShareID() async throws -> String? {
        let script = """
            import sqlite3, sys
            row = sqlite3.connect(sys.argv[1]).execute("SELECT record FROM share WHERE id = 1").fetchone()
            # The journal's share record: a version byte, then the id as a length byte and UTF-8.
            print(bytes(row[0][2:2 + row[0][1]]).decode() if row else "")
            """
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, journalFile])
        guard result.status == 0 else {
            throw JournalReadError(path: journalFile, reason: result.stderr.split(separator: "\n").last.map(String.init) ?? "")
        }
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    public init() throws {
        directory = try Paths.temporaryDirectory("livelocd-daemon")
        chmod(directory.path, 0o755)
    }

    /// A webhook key livelocd takes (Standard Webhooks' `whsec_` form, 24 bytes), as a secret file holds it.
    public static let webhookKey = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"

    /// Writes `text` to the file `name` in this harness's directory, readable by its owner only (as
    /// livelocd requires of every secret file: webhook keys, tokens, passwords), and returns it.
    public func secretFile(_ name: String, containing text: String) throws -> URL {
        let file = directory.appendingPathComponent(name)
        try writeSecretFile(text, to: file)
        return file
    }

    /// `webhook-secret` in this harness's directory, holding `webhookKey`.
    public func webhookSecretFile() throws -> URL {
        try secretFile("webhook-secret", containing: Self.webhookKey)
    }

    /// The arguments that point livelocd at this harness and replay `log` at `speed`.
    public func arguments(log: String, speed: Double = 10, loop: Bool = true, extra: [String] = []) -> [String] {
        ["--config", configPath(), "--source", "replay", "--replay.file", log, "--replay.speed", "\(speed)",
         "--replay.loop", "\(loop)", "--state_directory", stateDirectory, "--control.socket", socketPath] + extra
    }

    /// Starts livelocd and waits until its control socket is up.
    public func launch(log: String, speed: Double = 10, loop: Bool = true, extra: [String] = [],
                       environment: [String: String] = [:]) async throws -> DaemonProcess {
        let daemon = try DaemonProcess(Paths.executable("livelocd"), arguments(log: log, speed: speed, loop: loop, extra: extra),
                                       environment: environment)
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        return daemon
    }

    /// Starts livelocd on gpsd at 127.0.0.1:`port` and waits until its control socket is up.
    /// `environment` is added to the daemon's alone (libfaketime, say).
    public func launchGPSD(port: UInt16, environment: [String: String] = [:]) async throws -> DaemonProcess {
        let daemon = try DaemonProcess(Paths.executable("livelocd"), [
            "--config", configPath(), "--source", "gpsd", "--gpsd.host", "127.0.0.1", "--gpsd.port", "\(port)",
            "--state_directory", stateDirectory, "--control.socket", socketPath], environment: environment)
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        return daemon
    }

    /// Runs `liveloc ARGS --socket …` to completion.
    public func liveloc(_ arguments: [String], asNobody: Bool = false) async throws -> ProcessResult {
        let words = arguments + ["--socket", socketPath]
        if asNobody {
            return try await runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                        ["--reuid=65534", "--regid=65534", "--clear-groups", Paths.executable("liveloc").path] + words)
        }
        return try await runProcess(Paths.executable("liveloc"), words)
    }

    /// A configuration file of its own, so that the host's /etc/livelocd/livelocd.conf is never
    /// read; it turns the battery off, so that the host's battery never enters a test's events (a
    /// test that wants one gives `--battery.path`, which overrides the file).
    public func configPath() -> String {
        let path = directory.appendingPathComponent("livelocd.conf").path
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: Data("# test\nbattery.path = off\n".utf8))
        }
        return path
    }

    /// A replay log of RMC sentences, one per second from `start` for `seconds`, walking north.
    public func syntheticLog(named name: String, start: Date, seconds: Int) throws -> String {
        var text = ""
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for second in 0..<seconds {
            let time = start.addingTimeInterval(TimeInterval(second))
            formatter.dateFormat = "HHmmss.SS"
            let hms = formatter.string(from: time)
            formatter.dateFormat = "ddMMyy"
            let date = formatter.string(from: time)
            let minutes = 7.038 + Double(second) * 0.0005
            let body = "GPRMC,\(hms),A,48\(String(format: "%06.3f", minutes)),N,01131.000,E,2.0,0.0,\(date),,,A"
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            text += "$\(body)*\(String(format: "%02X", checksum))\r\n"
        }
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Sends `bytes` on a new connection to the control socket, half-closes, and returns the reply
    /// lines until the daemon closes the connection (bounded by `timeout` seconds). Runs on a thread
    /// of its own, so that its blocking calls never hold up the tests' concurrency pool.
    public func exchange(_ bytes: [UInt8], halfClose: Bool = true, timeout: Int = 10) async throws -> [String] {
        try await onThread { try exchangeBlocking(bytes, halfClose: halfClose, timeout: timeout) }
    }

    private func exchangeBlocking(_ bytes: [UInt8], halfClose: Bool, timeout: Int) throws -> [String] {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { break }  // the daemon may close early on an oversized request
            offset += written
        }
        if halfClose { shutdown(fd, Int32(SHUT_WR)) }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            reply.append(contentsOf: chunk[..<count])
        }
        return String(decoding: reply, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

/// Runs blocking `body` on a new thread and returns its result.
public func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A JSON line as a dictionary (nil when it is not a JSON object).
public func jsonObject(_ line: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
}

/// A daemon's journal that could not be read (python3's last line of error: "database is locked"
/// while the daemon runs).
public struct JournalReadError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String

    public var description: String { "cannot read \(path): \(reason)" }
}
