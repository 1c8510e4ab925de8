import Foundation
import Testing
import TestSupport

/// `liveloc share` in the foreground extended from the terminal: `kill -USR1 PID`.
@Suite struct ShareExtensionSignalTests {
    @Test func sigusr1ExtendsAForegroundShareByFifteenMinutesAndItEndsThereWithItsFinalUpdateAndEnded() async throws {
        let drive = Paths.fixture("drive-multignss-1hz.nmea").path
        // 15 min of the drive in 3.75 s (7.5 s under a sanitizer): the signal comes well before.
        let speed = Sanitizer.current == nil ? "240" : "120"
        let share = try await DaemonProcess(Paths.executable("liveloc"),
                                            ["share", "--duration", "15m", "--replay", drive, "--speed", speed, "--loop"])
        let first = try await share.waitForLine { jsonObject($0)?["event"] as? String == "updated" }
        let location = try #require(jsonObject(first)?["location"] as? [String: Any])
        #expect(location["expiresAt"] as? String == "2026-03-14T08:15:00.000Z")
        share.send(SIGUSR1)
        try await share.waitForLine(.stderr) { $0.contains("SIGUSR1: share") && $0.contains("extended by 15m") }
        #expect(await share.waitForExit(timeout: .seconds(60)) == 0)
        let events = share.lines(.stdout).compactMap(jsonObject)
        #expect(events.compactMap { $0["seq"] as? Int } == Array(1...events.count))
        let final = try #require(events.dropLast().last?["location"] as? [String: Any])
        #expect(final["isActive"] as? Bool == false)
        #expect(final["expiresAt"] as? String == "2026-03-14T08:30:00.000Z")
        #expect(final["startedAt"] as? String == "2026-03-14T08:00:00.000Z")
        #expect(events.last?["event"] as? String == "ended" && events.last?["reason"] as? String == "expired")
    }
}
