import JSONCoding
import LiveLocation
import Locking
import Testing

/// A gauge a test sets by hand.
final class ManualGauge: BatteryGauge {
    let reading = Locked<BatteryReading?>(nil)
    var latest: BatteryReading? { reading.withLock { $0 } }
    func set(_ value: BatteryReading?) { reading.withLock { $0 = value } }
}

@Suite struct BatteryInUpdatesTests {
    @Test func eachUpdateCarriesTheReadingOfTheMomentItWasMadeAndTheFixesHDOP() async {
        let clock = ManualClock(now: start)
        let gauge = ManualGauge()
        let broadcaster = LiveLocationBroadcaster(clock: clock, battery: gauge)
        await broadcaster.start(.fifteenMinutes)
        gauge.set(BatteryReading(level: 80, status: .discharging))
        var first = fix(at: 1)
        first.hdop = 0.9
        await deliver(first, to: broadcaster, clock: clock)
        gauge.set(BatteryReading(level: 79, status: .charging))
        await deliver(fix(at: 2), to: broadcaster, clock: clock)
        gauge.set(nil)  // unreadable now: left out
        await deliver(fix(at: 3), to: broadcaster, clock: clock)
        gauge.set(BatteryReading(level: 100, status: .full))
        await broadcaster.stop()
        let events = await drain(broadcaster)
        #expect(events.map(\.kind) == ["updated", "updated", "updated", "final", "ended"])
        #expect(events.compactMap(\.location).map(\.battery) == [
            BatteryReading(level: 80, status: .discharging), BatteryReading(level: 79, status: .charging), nil,
            BatteryReading(level: 100, status: .full),  // the final update: the reading when the share ended
        ])
        #expect(events[0].location?.hdop == 0.9 && events[1].location?.hdop == nil)
    }

    @Test func withoutAGaugeNoUpdateHasABattery() async {
        let (broadcaster, clock) = makeBroadcaster()
        await broadcaster.start(.fifteenMinutes)
        await deliver(fix(at: 1), to: broadcaster, clock: clock)
        let events = await drain(broadcaster)
        #expect(events.count == 1 && events[0].location?.battery == nil)
        #expect(!events[0].jsonLine.contains("battery"))
    }
}
