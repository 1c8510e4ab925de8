import Foundation

/// The outcome of a finished process.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String

    /// stdout's non-empty lines.
    public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
}

/// Runs `executable` with `arguments` to completion (killed after `timeout`), feeding `stdin`.
public func runProcess(
    _ executable: URL, _ arguments: [String], stdin: Data? = nil,
    environment: [String: String]? = nil, timeout: Duration = .seconds(60)
) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
    process.standardOutput = outPipe
    process.standardError = errPipe
    process.standardInput = stdin == nil ? FileHandle.nullDevice : inPipe
    try await process.runAsTestChild()
    if let stdin {
        try inPipe.fileHandleForWriting.write(contentsOf: stdin)
        try inPipe.fileHandleForWriting.close()
    }
    // The blocking reads and the wait run on threads of their own: on the cooperative pool (two
    // threads on a 2-core machine) they would starve every other test running meanwhile.
    async let out = onThread { outPipe.fileHandleForReading.readDataToEndOfFile() }
    async let err = onThread { errPipe.fileHandleForReading.readDataToEndOfFile() }
    let watchdog = Task {
        try await Task.sleep(for: timeout)
        process.terminate()
    }
    let (outData, errData) = try await (out, err)
    try await onThread { process.waitUntilExit() }
    watchdog.cancel()
    return ProcessResult(status: process.terminationStatus,
                         stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}
