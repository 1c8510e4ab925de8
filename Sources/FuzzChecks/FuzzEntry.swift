#if FUZZING
import CFuzzer

/// Hands control to libFuzzer (only in builds with `-sanitize=fuzzer -D FUZZING`): it parses its
/// own options from the command line and calls `callback` with every input; returns its exit status.
package func runLibFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32 {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}
#endif

/// Fails loudly (a crash libFuzzer records) when an invariant does not hold.
package func crashOnViolations(_ violations: [FuzzViolation]) {
    guard violations.isEmpty else {
        fatalError(violations.map(\.description).joined(separator: "\n"))
    }
}
