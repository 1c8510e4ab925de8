import Foundation
import Testing
import TestSupport

/// livelocd to the loopback OsmAnd server (scripts/osmand-server.py, Traccar's decoder's contract)
/// with a fake battery: each position carries the fix's HDOP, the battery and whether it charges.
@Suite struct TraccarBatteryTests {
    @Test func eachPositionCarriesHDOPTheBatteryAndWhetherItCharges() async throws {
        let supplies = try FakePowerSupplies()
        defer { try? FileManager.default.removeItem(at: supplies.root) }
        let battery = try supplies.add("BAT0", ["type": "Battery", "capacity": "64", "status": "Charging"])
        let harness = try DaemonHarness()
        let server = try await OsmAndServer.start(devices: ["van"], records: harness.directory.appendingPathComponent("positions.jsonl"))
        defer { server.stop() }
        let daemon = try await harness.launch(log: Paths.fixture("drive-multignss-1hz.nmea").path, extra: [
            "--traccar.url", server.url, "--traccar.device_id", "van", "--battery.path", battery])
        #expect(try await harness.liveloc(["start", "--duration", "15m"]).status == 0)
        let records = await server.waitForRecords { $0.count >= 3 }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
        try #require(records.count >= 3, "\(records)")
        for record in records.prefix(3) {
            #expect(record.params["batt"] == "64" && record.params["charge"] == "true", "\(record.params)")
            // The log's GGA sentences give HDOP 0.5-2 (the drive's first: 1.02).
            #expect(record.number("hdop").map { $0 > 0.3 && $0 < 3 } == true, "\(record.params)")
        }
    }
}
