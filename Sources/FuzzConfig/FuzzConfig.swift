import FuzzChecks
#if canImport(Glibc)
import Glibc
#endif

/// `fuzz-config`: arbitrary bytes into the daemon's configuration file parser (ConfigurationFuzzCheck).
@main
enum FuzzConfig {
    static func main() {
        #if FUZZING
        exit(runLibFuzzer { data, size in
            crashOnViolations(ConfigurationFuzzCheck.violations(in: Array(UnsafeBufferPointer(start: data, count: size))))
            return 0
        })
        #else
        exit(replayInputs(harness: "fuzz-config", check: ConfigurationFuzzCheck.violations(in:)))
        #endif
    }
}
