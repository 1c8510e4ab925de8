import FuzzChecks
#if canImport(Glibc)
import Glibc
#endif

/// `fuzz-nmea`: arbitrary bytes into the NMEA decoder, fed at once and in chunks (NMEAFuzzCheck).
@main
enum FuzzNMEA {
    static func main() {
        #if FUZZING
        exit(runLibFuzzer { data, size in
            crashOnViolations(NMEAFuzzCheck.violations(in: UnsafeRawBufferPointer(start: data, count: size)))
            return 0
        })
        #else
        exit(replayInputs(harness: "fuzz-nmea", check: NMEAFuzzCheck.violations(in:)))
        #endif
    }
}
