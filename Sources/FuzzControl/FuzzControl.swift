import FuzzChecks
#if canImport(Glibc)
import Glibc
#endif

/// `fuzz-control`: arbitrary bytes into the control socket's request decoder (one request line) (ControlRequestFuzzCheck).
@main
enum FuzzControl {
    static func main() {
        #if FUZZING
        exit(runLibFuzzer { data, size in
            crashOnViolations(ControlRequestFuzzCheck.violations(in: Array(UnsafeBufferPointer(start: data, count: size))))
            return 0
        })
        #else
        exit(replayInputs(harness: "fuzz-control", check: ControlRequestFuzzCheck.violations(in:)))
        #endif
    }
}
