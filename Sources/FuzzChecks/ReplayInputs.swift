#if canImport(Glibc)
import Glibc
#endif

/// Without libFuzzer (a normal build), a harness runs its check on the files given, to reproduce a
/// crash file under a debugger or a sanitizer. Returns the exit status: 0 when every file passed.
public func replayInputs(harness: String, check: ([UInt8]) -> [FuzzViolation]) -> Int32 {
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
        guard let bytes = readFile(path) else {
            print("\(path): cannot read: \(String(cString: strerror(errno)))")
            failed = true
            continue
        }
        let violations = check(bytes)
        print("\(path): \(violations.isEmpty ? "ok" : violations.map(\.description).joined(separator: "; "))")
        failed = failed || !violations.isEmpty
    }
    return failed ? 1 : 0
}

private func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var block = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&block, 1, block.count, file)
        bytes.append(contentsOf: block[..<count])
        if count < block.count { return ferror(file) == 0 ? bytes : nil }
    }
}
