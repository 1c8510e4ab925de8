import FuzzChecks
import Testing

/// The daemon's control-request decoder and configuration parser on inputs the fuzzer found or
/// starts from: no crash, accepted requests round-trip, configuration values in range, errors on one line.
@Suite struct DaemonInputFuzzRegressionTests {
    @Test("control-request decoder holds its invariants on every recorded crash and seed",
          arguments: FuzzInputs.regressions("control") + FuzzInputs.seeds("control"))
    func controlRequestInputHoldsInvariants(_ path: String) throws {
        #expect(ControlRequestFuzzCheck.violations(in: try FuzzInputs.bytes(path)) == [], "\(path)")
    }

    @Test("configuration parser holds its invariants on every recorded crash and seed",
          arguments: FuzzInputs.regressions("config") + FuzzInputs.seeds("config"))
    func configurationInputHoldsInvariants(_ path: String) throws {
        #expect(ConfigurationFuzzCheck.violations(in: try FuzzInputs.bytes(path)) == [], "\(path)")
    }

    @Test("a throttle interval too long for a Duration is a bad value, not a crash")
    func hugeMinIntervalIsRejected() {
        #expect(ConfigurationFuzzCheck.violations(in: Array("throttle.min_interval = 1e300h\n".utf8)) == [])
        #expect(ConfigurationFuzzCheck.violations(in: Array("throttle.min_interval = 9223372036854775807s\n".utf8)) == [])
    }
}
