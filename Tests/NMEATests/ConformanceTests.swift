import Foundation
import Testing
import TestSupport

/// `liveloc decode` against gpsd's own expected output on its corpus of real receiver logs,
/// scored by /work/shared/tools/nmea-conformance (gpsd's gpsdecode: 96.1 %, 35 extras).
@Suite struct GpsdConformance {
    static let tool = Paths.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/tools/nmea-conformance")

    @Test(.enabled(if: Paths.gpsdCorpus != nil && FileManager.default.fileExists(atPath: tool.path),
                   "needs ../shared/gpsd-corpus and ../shared/tools/nmea-conformance"),
          .timeLimit(.minutes(5)))
    func decodeMatchesAtLeast99PercentOfGpsdFixesWithFewerThan35Extras() async throws {
        let corpus = try #require(Paths.gpsdCorpus)
        let liveloc = Paths.executable("liveloc")
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [Self.tool.path, corpus.path, "--", liveloc.path, "decode"], timeout: .seconds(240))
        // e.g. "fixes matched: 4235/4245 (99.8%), extra fixes: 14"
        let summary = try #require(result.stdoutLines.first { $0.hasPrefix("fixes matched:") },
                                   "no summary in: \(result.stdout.suffix(500)) \(result.stderr.suffix(500))")
        let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let matched = numbers[0], total = numbers[1], extras = numbers[numbers.count - 1]
        #expect(total > 4000)
        #expect(Double(matched) >= 0.99 * Double(total), "\(summary)")
        #expect(extras < 35, "\(summary)")
        // Every log decoded with exit status 0 and only JSON lines.
        let perLog = result.stdoutLines.filter { $0.hasPrefix("ok  ") || $0.hasPrefix("FAIL") }
        #expect(perLog.count > 40)
        #expect(perLog.allSatisfy { $0.hasSuffix("exit 0") && $0.contains(" 0 unparsable lines") })
    }
}
