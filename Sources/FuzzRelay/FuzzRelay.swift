import FuzzChecks
#if canImport(Glibc)
import Glibc
#endif

/// `fuzz-relay`: arbitrary bytes as a request to livelocd-relay: its routes, a device's post, the
/// store and a viewer's stream, the secrets file (RelayRequestFuzzCheck).
@main
enum FuzzRelay {
    static func main() {
        #if FUZZING
        exit(runLibFuzzer { data, size in
            crashOnViolations(RelayRequestFuzzCheck.violations(in: Array(UnsafeBufferPointer(start: data, count: size))))
            return 0
        })
        #else
        exit(replayInputs(harness: "fuzz-relay", check: RelayRequestFuzzCheck.violations(in:)))
        #endif
    }
}
