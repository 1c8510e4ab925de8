import Foundation
import LiveLocation
import Testing
import TestSupport

/// `liveloc share --precision --zone` on the drive: what stdout (a destination like any other) gets.
@Suite struct SharePrivacyTests {
    let liveloc = Paths.executable("liveloc")
    let drive = Paths.fixture("drive-multignss-1hz.nmea").path
    /// Around the drive's position at 08:15:00, when a 15-minute share expires (27 m/s: the last
    /// ~35 s of the share are inside).
    static let zone = PrivacyZone(latitude: 48.2659, longitude: 11.6476, radiusMeters: 1000)!
    static let grid = PrivacyGrid(sizeMeters: 100)!

    @Test func aThrottledShareOnAGridEndingInAZoneNeverRevealsMoreThanEither() async throws {
        let truth = try await decodedPositions(of: drive)
        let result = try await runProcess(liveloc, [
            "share", "--duration", "15m", "--replay", drive, "--speed", "0", "--min-distance", "50",
            "--precision", "100", "--zone", "48.2659,11.6476,1000", "--zone", "-10,-10,10"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = result.stdoutLines.compactMap(jsonObject)
        #expect(events.last?["reason"] as? String == "expired")
        let locations = events.compactMap { $0["location"] as? [String: Any] }
        let shared = locations.map { Fix(time: Timestamp(iso8601: $0["lastUpdateAt"] as! String)!,
                                         latitude: $0["latitude"] as! Double, longitude: $0["longitude"] as! Double,
                                         horizontalAccuracyMeters: $0["accuracy"] as? Double) }
        #expect(shared.count > 50)
        let centre = Self.grid.snap(latitude: Self.zone.latitude, longitude: Self.zone.longitude)
        var inZone = 0
        for (location, fix) in zip(locations, shared) {
            #expect(location["speed"] == nil && location["course"] == nil && location["altitude"] == nil)
            let (latitude, longitude) = try #require(truth[fix.time.iso8601])
            let real = Fix(time: fix.time, latitude: latitude, longitude: longitude)
            if Self.zone.contains(latitude: latitude, longitude: longitude) {
                inZone += 1
                #expect(abs(fix.latitude - centre.latitude) < 1e-8 && abs(fix.longitude - centre.longitude) < 1e-8)
                #expect(fix.horizontalAccuracyMeters! >= Self.zone.radiusMeters)
            } else {
                #expect(fix.distanceMeters(to: real) <= Self.grid.maximumErrorMeters + 0.01)
                #expect(fix.horizontalAccuracyMeters! >= 100)
            }
        }
        // The zone's fixes make one update (the throttle compares what is shared), and the final one.
        #expect(inZone == 2, "\(inZone) updates in the zone")
        let final = try #require(locations.last)
        #expect(final["isActive"] as? Bool == false)
        #expect(abs(shared.last!.latitude - centre.latitude) < 1e-8)
        // Every update but the final moved at least the throttle's 50 m, as shared.
        for (previous, next) in zip(shared.dropLast(), shared.dropLast().dropFirst()) {
            #expect(next.distanceMeters(to: previous) >= 50)
        }
    }

    @Test func aBadPrecisionOrZoneIsAUsageErrorNamingTheOption() async throws {
        for (option, value) in [("--precision", "0"), ("--precision", "far"), ("--zone", "48.1,11.5"), ("--zone", "48.1,11.5,0")] {
            let result = try await runProcess(liveloc, ["share", "--duration", "15m", "--replay", drive, option, value])
            #expect(result.status == 2)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains(option) && result.stderr.contains("'\(value)'"), "\(result.stderr)")
        }
    }
}
