import Foundation
import Testing
import TestSupport

/// livelocd with a fake power supply directory (`battery.path`) and a real mosquitto: the battery
/// of the moment travels in each event, to stdout and to OwnTracks; OwnTracks' last will is the
/// apps' `lwt` when the daemon dies.
@Suite("The battery and OwnTracks from livelocd", .serialized, .enabled(if: Mosquitto.isAvailable))
struct BatteryDaemonTests {
    @Test func theBatteryOfEachMomentGoesToStdoutAndOwnTracksAndTheWillIsTheAppsLWT() async throws {
        let supply = try Paths.temporaryDirectory("BAT0")
        defer { try? FileManager.default.removeItem(at: supply) }
        func write(_ capacity: String, _ status: String) throws {
            try Data("Battery\n".utf8).write(to: supply.appendingPathComponent("type"))
            try Data("\(capacity)\n".utf8).write(to: supply.appendingPathComponent("capacity"))
            try Data("\(status)\n".utf8).write(to: supply.appendingPathComponent("status"))
        }
        try write("87", "Discharging")
        try await Mosquitto.with { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["owntracks/livelocd/van"])
            try await subscriber.waitUntilSubscribed()
            let harness = try DaemonHarness()
            let before = Int(Date().timeIntervalSince1970)
            let daemon = try await harness.launch(log: MQTTDaemonTests.drive, extra: [
                "--battery.path", supply.path, "--battery.interval", "1s",
                "--mqtt.url", broker.url, "--mqtt.format", "owntracks", "--mqtt.device", "van"])
            #expect(daemon.lines(.stderr).contains { $0.contains("battery: \(supply.path), read every 1 s") })
            #expect(try await harness.liveloc(["start", "--duration", "1h"]).status == 0)
            let first = try await daemon.waitForLine { ($0.contains("\"battery\":")) }
            #expect(first.contains(#""battery":{"level":87,"status":"discharging"}"#), "\(first)")
            try await subscriber.waitForMessages(count: 1) { $0.payload.contains(#""batt":87,"bs":1"#) }

            try write("88", "Charging")
            let later = try await daemon.waitForLine(timeout: .seconds(20)) { $0.contains(#""battery":{"level":88,"status":"charging"}"#) }
            #expect(later.contains("\"event\":\"updated\""))
            try await subscriber.waitForMessages(count: 1, timeout: .seconds(20)) { $0.payload.contains(#""batt":88,"bs":2"#) }
            // An update of the share's own moment: created_at is only in the final update.
            #expect(subscriber.messages.allSatisfy { !$0.payload.contains("created_at") })

            // The daemon dies without a DISCONNECT: the broker publishes the will.
            await daemon.kill9()
            let will = try await subscriber.waitForMessages(count: 1) { $0.payload.contains(#""_type":"lwt""#) }
            #expect(!will[0].retained)
            let tst = try #require(jsonObject(will[0].payload)?["tst"] as? Int)
            #expect(tst >= before && tst <= Int(Date().timeIntervalSince1970), "\(will[0].payload)")
            #expect(jsonObject(will[0].payload)?.count == 2)
        }
    }
}
