import Foundation
import Testing
import TestSupport

/// livelocd on a real gpsd (gpsfake replaying the drive), on the wall clock.
@Suite(.serialized) struct GPSDDaemonTests {
    @Test(.enabled(if: GPSFake.isAvailable))
    func aShareFromGPSDGetsUpdatesAndStatusShowsTheConnectedSource() async throws {
        let harness = try DaemonHarness()
        let fake = try await GPSFake.start(log: Paths.fixture("drive-multignss-1hz.nmea"), secondsPerSentence: 0.005)
        let daemon = try await harness.launchGPSD(port: fake.port)
        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine(timeout: .seconds(30)) { jsonObject($0)?["shareId"] as? String == id }
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        let source = try #require(status["source"] as? [String: Any])
        #expect(source["kind"] as? String == "gpsd")
        #expect(source["state"] as? String == "connected")
        #expect(source["fix"] as? Bool == true)
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        await fake.stop()
    }
}
