import Foundation
import FuzzChecks
import Testing
import TestSupport

/// The NMEA decoder on inputs the fuzzer found or starts from: no crash, only real positions,
/// unknown values nil, and the same fixes however the bytes are cut into reads (NMEAFuzzCheck).
@Suite struct NMEADecoderFuzzRegressionTests {
    @Test("decoder holds its invariants on every recorded fuzz crash", arguments: FuzzInputs.regressions("nmea"))
    func recordedCrashInputHoldsInvariants(_ path: String) throws {
        #expect(NMEAFuzzCheck.violations(in: try FuzzInputs.bytes(path)) == [], "\(path)")
    }

    @Test("decoder holds its invariants on every committed fuzz seed", arguments: FuzzInputs.seeds("nmea"))
    func seedHoldsInvariants(_ path: String) throws {
        #expect(NMEAFuzzCheck.violations(in: try FuzzInputs.bytes(path)) == [], "\(path)")
    }

    @Test("decoder holds its invariants on every fixture log")
    func fixtureLogsHoldInvariants() throws {
        let logs = FuzzInputs.files(in: "Fixtures").filter { $0.hasSuffix(".nmea") }
        #expect(!logs.isEmpty)
        for log in logs {
            #expect(NMEAFuzzCheck.violations(in: try FuzzInputs.bytes(log)) == [], "\(log)")
        }
    }

    @Test("decoder holds its invariants on every log of the gpsd corpus", .enabled(if: Paths.gpsdCorpus != nil))
    func gpsdCorpusLogsHoldInvariants() throws {
        let corpus = try #require(Paths.gpsdCorpus)
        let logs = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".log") }.sorted()
        #expect(!logs.isEmpty)
        for log in logs {
            let bytes = Array(try Data(contentsOf: corpus.appendingPathComponent(log)))
            #expect(NMEAFuzzCheck.violations(in: bytes) == [], "\(log)")
        }
    }

    @Test("the chunking that the check uses covers every byte once, in order")
    func chunkingCoversInputInOrder() {
        let input = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let ranges = input.withUnsafeBytes { Array(InputChunking($0)) }
        #expect(ranges.first?.lowerBound == 0)
        #expect(ranges.last?.upperBound == input.count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound && !$0.isEmpty })
        #expect(ranges.count > 20, "mostly small chunks")
    }
}
