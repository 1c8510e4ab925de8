import FuzzChecks
#if canImport(Glibc)
import Glibc
#endif

/// `fuzz-http`: arbitrary bytes as a server's answer to the built-in HTTP client's response parser (HTTPResponseFuzzCheck).
@main
enum FuzzHTTP {
    static func main() {
        #if FUZZING
        exit(runLibFuzzer { data, size in
            crashOnViolations(HTTPResponseFuzzCheck.violations(in: Array(UnsafeBufferPointer(start: data, count: size))))
            return 0
        })
        #else
        exit(replayInputs(harness: "fuzz-http", check: HTTPResponseFuzzCheck.violations(in:)))
        #endif
    }
}
