import Foundation
import Locking

/// A long-running process (livelocd) whose stdout and stderr lines a test can wait for.
public final class DaemonProcess: Sendable {
    public enum Stream: Sendable { case stdout, stderr }

    private struct Waiter {
        var stream: Stream
        var predicate: @Sendable (String) -> Bool
        var continuation: CheckedContinuation<String, any Error>
    }

    private struct State {
        var lines: [Stream: [String]] = [.stdout: [], .stderr: []]
        var partial: [Stream: [UInt8]] = [.stdout: [], .stderr: []]
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        var exitStatus: Int32?
        var exitWaiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Locked(State())
    private let process: Process

    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments`; `environment` is added to the test's own.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        for (pipe, stream) in [(out, Stream.stdout), (err, Stream.stderr)] {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let data = handle.availableData
                if data.isEmpty { handle.readabilityHandler = nil }
                self?.append(Array(data), to: stream)
            }
        }
        process.terminationHandler = { [weak self] process in
            self?.exited(process.terminationStatus)
        }
        try await process.runAsTestChild()
    }

    /// The lines seen so far.
    public func lines(_ stream: Stream) -> [String] { state.withLock { $0.lines[stream]! } }

    /// The first line of `stream` (already seen or still to come) that satisfies `predicate`.
    /// - Throws: `DaemonProcessError.timedOut` (with what the process printed) after `timeout`.
    @discardableResult
    public func waitForLine(_ stream: Stream = .stdout, timeout: Duration = .seconds(20),
                            where predicate: @escaping @Sendable (String) -> Bool) async throws -> String {
        let id = state.withLock { state -> Int in state.nextWaiter += 1; return state.nextWaiter }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            let waiter = self.state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: DaemonProcessError.timedOut(
                stdout: self.lines(.stdout).suffix(5).joined(separator: "\n"),
                stderr: self.lines(.stderr).suffix(10).joined(separator: "\n")))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let found = state.withLock { state -> String? in
                if let line = state.lines[stream]!.first(where: predicate) { return line }
                state.waiters[id] = Waiter(stream: stream, predicate: predicate, continuation: continuation)
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Sends `signal` to the process.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// The exit status (or terminating signal), once the process has ended; kills it after `timeout`.
    public func waitForExit(timeout: Duration = .seconds(20)) async -> Int32 {
        let killer = Task {
            try await Task.sleep(for: timeout)
            self.send(SIGKILL)
        }
        defer { killer.cancel() }
        return await withCheckedContinuation { continuation in
            let status = state.withLock { state -> Int32? in
                if let status = state.exitStatus { return status }
                state.exitWaiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Kills the process (SIGKILL) and waits for it.
    public func kill9() async {
        send(SIGKILL)
        _ = await waitForExit()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private func append(_ bytes: [UInt8], to stream: Stream) {
        let ready = state.withLock { state -> [(CheckedContinuation<String, any Error>, String)] in
            var buffer = state.partial[stream]! + bytes
            if bytes.isEmpty, !buffer.isEmpty { buffer.append(UInt8(ascii: "\n")) }
            var ready: [(CheckedContinuation<String, any Error>, String)] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                state.lines[stream]!.append(line)
                for (id, waiter) in state.waiters where waiter.stream == stream && waiter.predicate(line) {
                    state.waiters.removeValue(forKey: id)
                    ready.append((waiter.continuation, line))
                }
            }
            state.partial[stream] = buffer
            return ready
        }
        for (continuation, line) in ready { continuation.resume(returning: line) }
    }

    private func exited(_ status: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
            state.exitStatus = status
            defer { state.exitWaiters = [] }
            return state.exitWaiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }
}

public enum DaemonProcessError: Error, CustomStringConvertible {
    case timedOut(stdout: String, stderr: String)

    public var description: String {
        switch self {
        case .timedOut(let stdout, let stderr): "timed out waiting for a line; stdout ends:\n\(stdout)\nstderr ends:\n\(stderr)"
        }
    }
}
