import Foundation

/// A Python test server from `scripts/` running as a process on 127.0.0.1: started with its
/// arguments, ready once it printed "listening PORT", recording one JSON object per request into a
/// file (the convention of `scripts/webhook-receiver.py`, `telegram-bot-api.py`, `osmand-server.py`).
public final class LoopbackScriptServer: Sendable {
    public let port: Int
    public let recordsFile: URL
    private let process: Process

    /// Starts `scripts/<script>` with `arguments` plus `--records` and `--port`, and waits (at most
    /// 30 s: Python's start-up on a loaded machine) until it listens. Its stderr goes to `<records>.stderr`.
    public static func start(script: String, arguments: [String], records: URL, port: Int = 0) async throws
        -> LoopbackScriptServer
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Paths.packageRoot.appendingPathComponent("scripts/\(script)").path]
            + arguments + ["--records", records.path, "--port", String(port)]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardInput = FileHandle.nullDevice
        let stderrURL = records.appendingPathExtension("stderr")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try await process.runAsTestChild()
        // Read on a thread of its own, with a deadline: blocking reads and a watchdog task on the
        // cooperative pool (two threads on a 2-core machine) could starve, and the watchdog then
        // fire late, killing a server that had started.
        let descriptor = stdout.fileHandleForReading.fileDescriptor
        let line = try await onThread { () -> String in
            var bytes: [UInt8] = []
            let deadline = Date().addingTimeInterval(30)
            var chunk = [UInt8](repeating: 0, count: 256)
            while !bytes.contains(UInt8(ascii: "\n")) {
                let left = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
                var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard left > 0, poll(&entry, 1, left) > 0 else { break }
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 { break }
                bytes += chunk[..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard line.hasPrefix("listening "), let bound = Int(line.dropFirst(10).prefix(while: \.isNumber)) else {
            process.terminate()
            let stderr = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            throw ReceiverError(message: "\(script) did not start: \(line) \(stderr)")
        }
        return LoopbackScriptServer(process: process, port: bound, records: records)
    }

    private init(process: Process, port: Int, records: URL) {
        self.process = process
        self.port = port
        self.recordsFile = records
    }

    /// Stops the server and waits for it to exit (SIGKILL after 3 s).
    public func stop() {
        process.endBlocking()
    }

    deinit { stop() }

    /// Whether the server is still running, or how it ended (for a test's failure message).
    public var state: String {
        process.isRunning ? "running (pid \(process.processIdentifier))"
            : "exited (\(process.terminationReason == .uncaughtSignal ? "signal" : "status") \(process.terminationStatus))"
    }

    /// Every record so far, decoded as `Record`, in arrival order (lines that do not decode are skipped).
    public func records<Record: Decodable>(as type: Record.Type) -> [Record] {
        guard let data = try? Data(contentsOf: recordsFile) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(Record.self, from: $0) }
    }

    /// Waits until `condition` holds for the records, re-reading the file every 20 ms for at most
    /// `timeout`; returns the records either way (the caller's #expect tells which).
    @discardableResult
    public func waitForRecords<Record: Decodable>(
        as type: Record.Type, timeout: Duration = .seconds(20), until condition: ([Record]) -> Bool
    ) async -> [Record] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let current = records(as: Record.self)
            if condition(current) || ContinuousClock.now >= deadline { return current }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
