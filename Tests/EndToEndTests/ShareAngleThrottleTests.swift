import Foundation
import Testing
import TestSupport

/// `liveloc share --min-angle`: a corner on a throttled share is sent when it happens.
@Suite struct ShareAngleThrottleTests {
    let liveloc = Paths.executable("liveloc")

    /// 40 s of RMC at 1 Hz: 20 s north (course 0°), then east (course 90°) from 08:00:20.
    func cornerLog() throws -> String {
        var text = ""
        for second in 0..<40 {
            let east = second >= 20
            let latitudeMinutes = 7.0 + Double(min(second, 20)) * 0.002
            let longitudeMinutes = 31.0 + Double(max(0, second - 20)) * 0.003
            let body = String(format: "GPRMC,0800%02d.00,A,48%06.3f,N,011%06.3f,E,10.0,%.1f,140326,,,A",
                              second, latitudeMinutes, longitudeMinutes, east ? 90.0 : 0.0)
            let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
            text += "$\(body)*\(String(format: "%02X", checksum))\r\n"
        }
        let path = try Paths.temporaryDirectory("angle").appendingPathComponent("corner.nmea").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func updateTimes(_ extra: [String]) async throws -> [String] {
        let result = try await runProcess(liveloc, ["share", "--duration", "15m", "--replay", try cornerLog(), "--speed", "0",
                                                    "--min-interval", "60"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdoutLines.compactMap(jsonObject).compactMap { $0["location"] as? [String: Any] }
            .filter { $0["isActive"] as? Bool == true }.compactMap { $0["lastUpdateAt"] as? String }
    }

    @Test func theFirstFixAfterATurnOfMoreThanMinAngleIsSentThroughAOneMinuteInterval() async throws {
        #expect(try await updateTimes([]) == ["2026-03-14T08:00:00.000Z"])
        #expect(try await updateTimes(["--min-angle", "45"]) == ["2026-03-14T08:00:00.000Z", "2026-03-14T08:00:20.000Z"])
        #expect(try await updateTimes(["--min-angle", "90"]) == ["2026-03-14T08:00:00.000Z"])  // a turn of exactly 90° is not more
    }

    @Test func aMinAngleOutsideZeroTo180IsAUsageError() async throws {
        let result = try await runProcess(liveloc, ["share", "--duration", "15m", "--replay", try cornerLog(), "--min-angle", "180"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--min-angle"))
    }
}
