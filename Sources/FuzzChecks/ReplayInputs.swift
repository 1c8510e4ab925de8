import SystemIO

/// Without libFuzzer (a normal build), a harness runs its check on the files given, to reproduce a
/// crash file under a debugger or a sanitizer. Returns the exit status: 0 when every file passed.
package func replayInputs(harness: String, check: ([UInt8]) -> [FuzzViolation]) -> Int32 {
    let paths = CommandLine.arguments.dropFirst()
    guard !paths.isEmpty, !paths.contains(where: { $0.hasPrefix("-") }) else {
        print("""
            usage: \(harness) FILE...
            Runs the harness's invariant checks on each FILE. This build has no libFuzzer: to fuzz,
            run scripts/fuzz (it builds with -sanitize=fuzzer,address -D FUZZING).
            """)
        return 2
    }
    var failed = false
    for path in paths {
        let bytes: [UInt8]
        do { bytes = try readFile(path) } catch {
            print("\(path): \(error)")
            failed = true
            continue
        }
        let violations = check(bytes)
        print("\(path): \(violations.isEmpty ? "ok" : violations.map(\.description).joined(separator: "; "))")
        failed = failed || !violations.isEmpty
    }
    return failed ? 1 : 0
}

private func readFile(_ path: String) throws -> [UInt8] {
    let descriptor = try FileDescriptor.openForReading(path)
    defer { descriptor.close() }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = try block.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        if count == 0 { return bytes }
        bytes.append(contentsOf: block[..<count])
    }
}
