import Daemon
import Foundation
import LiveLocation
import Testing
import TestSupport

@Suite struct PrivacySettingsTests {
    @Test func precisionAndRepeatedZonesComeFromTheFileInOrder() throws {
        var configuration = DaemonConfiguration(environment: [:])
        try configuration.apply(fileText: """
            privacy.precision = 250
            privacy.zone = 48.1372,11.5756,400
            privacy.zone = -33.86, 151.21, 50
            """, path: "test.conf")
        #expect(configuration.privacy.grid == PrivacyGrid(sizeMeters: 250))
        #expect(configuration.privacy.zones == [PrivacyZone(latitude: 48.1372, longitude: 11.5756, radiusMeters: 400)!,
                                               PrivacyZone(latitude: -33.86, longitude: 151.21, radiusMeters: 50)!])
        #expect(DaemonConfiguration(environment: [:]).repeatableKeys == ["privacy.zone"])
        try configuration.set("privacy.precision", to: "off")
        #expect(configuration.privacy.grid == nil)
        #expect(DaemonConfiguration(environment: [:]).privacy.isOff)
    }

    @Test func aBadPrecisionOrZoneNamesTheKeyAndLine() {
        for (text, key) in [("privacy.precision = 0.5", "privacy.precision"), ("privacy.precision = wide", "privacy.precision"),
                            ("privacy.zone = 48.1,11.5", "privacy.zone"), ("privacy.zone = 95,11.5,100", "privacy.zone"),
                            ("privacy.zone = 48.1,11.5,-1", "privacy.zone")] {
            var configuration = DaemonConfiguration(environment: [:])
            let error = #expect(throws: ConfigurationError.self) {
                try configuration.apply(fileText: "\n" + text + "\n", path: "x.conf")
            }
            #expect(error?.key == key)
            #expect(error?.description.hasPrefix("x.conf:2: invalid value") == true, "\(String(describing: error))")
        }
    }

    @Test func aBadZoneFlagExitsWith2NamingIt() async throws {
        let harness = try DaemonHarness()
        let result = try await runProcess(Paths.executable("livelocd"), [
            "--config", harness.configPath(), "--privacy.zone", "48.1,11.5,300", "--privacy.zone", "48.1,11.5"])
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("--privacy.zone") && result.stderr.contains("'48.1,11.5'"), "\(result.stderr)")
    }
}

/// The real daemon with a grid and two zones (one on the drive's stop at 08:05, one far away):
/// every event on stdout and the status say no more than the grid or the zone.
@Suite(.serialized) struct DaemonPrivacyTests {
    static let drive = Paths.fixture("drive-multignss-1hz.nmea").path
    static let zone = PrivacyZone(latitude: 48.1550, longitude: 11.5830, radiusMeters: 300)!
    static let grid = PrivacyGrid(sizeMeters: 200)!

    @Test func everyUpdateOnStdoutIsOnTheGridOrSaysOnlyTheZone() async throws {
        let truth = try await decodedPositions(of: Self.drive)
        let harness = try DaemonHarness()
        let daemon = try await harness.launch(log: Self.drive, speed: 50, extra: [
            "--privacy.precision", "200", "--privacy.zone", "0,0,1000", "--privacy.zone", "48.1550,11.5830,300"])
        let id = try await harness.liveloc(["start", "--duration", "1h"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try await daemon.waitForLine(timeout: .seconds(60)) { line in
            guard let location = jsonObject(line)?["location"] as? [String: Any] else { return false }
            return (location["lastUpdateAt"] as? String ?? "") >= "2026-03-14T08:06:40.000Z"
        }
        let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
        daemon.send(SIGTERM)
        _ = await daemon.waitForExit()

        let updates = daemon.lines(.stdout).compactMap(jsonObject).filter { $0["shareId"] as? String == id }
            .compactMap { $0["location"] as? [String: Any] }
        var inZone = 0
        var checked = 0
        for location in updates {
            let shared = try #require(position(location))
            #expect(location["speed"] == nil && location["course"] == nil && location["altitude"] == nil)
            let accuracy = try #require(location["accuracy"] as? Double)
            #expect(accuracy >= 200)
            // A shared position is a cell's centre: snapping it again leaves it where it is.
            let again = Self.grid.snap(latitude: shared.latitude, longitude: shared.longitude)
            #expect(abs(again.latitude - shared.latitude) < 1e-8 && abs(again.longitude - shared.longitude) < 1e-8)
            guard let time = location["lastUpdateAt"] as? String, let (latitude, longitude) = truth[time] else { continue }
            let real = Fix(time: Timestamp(iso8601: time)!, latitude: latitude, longitude: longitude)
            checked += 1
            if Self.zone.contains(latitude: real.latitude, longitude: real.longitude) {
                inZone += 1
                let centre = Self.grid.snap(latitude: Self.zone.latitude, longitude: Self.zone.longitude)
                #expect(abs(shared.latitude - centre.latitude) < 1e-8 && abs(shared.longitude - centre.longitude) < 1e-8)
                #expect(accuracy >= Self.zone.radiusMeters)
            } else {
                #expect(shared.distanceMeters(to: real) <= Self.grid.maximumErrorMeters + 0.01)
            }
        }
        #expect(checked >= 300 && inZone >= 20, "\(checked) updates checked, \(inZone) in the zone")
        // The status shows the position as shared, not the true one.
        let last = try #require((status["share"] as? [String: Any])?["lastPosition"] as? [String: Any])
        let snapped = Self.grid.snap(latitude: last["latitude"] as! Double, longitude: last["longitude"] as! Double)
        #expect(abs(snapped.latitude - (last["latitude"] as! Double)) < 1e-8)
    }
}

/// The position of an event's `location` (or a status's `lastPosition`) as a fix.
private func position(_ object: [String: Any]) -> Fix? {
    guard let latitude = object["latitude"] as? Double, let longitude = object["longitude"] as? Double else { return nil }
    return Fix(time: Timestamp(millisecondsSince1970: 0), latitude: latitude, longitude: longitude)
}
