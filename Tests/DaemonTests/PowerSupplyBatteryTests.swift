@testable import Daemon
import Foundation
import LiveLocation
import Testing
import TestSupport

@Suite("The battery from /sys/class/power_supply")
struct PowerSupplyBatteryTests {
    @Test func theFirstSystemBatteryIsFoundNotTheMainsNorAMousesBattery() throws {
        let supplies = try FakePowerSupplies()
        defer { try? FileManager.default.removeItem(at: supplies.root) }
        #expect(PowerSupplyBattery.find(in: supplies.root.path) == nil)
        try supplies.add("AC", ["type": "Mains", "online": "1"])
        try supplies.add("hidpp_battery_0", ["type": "Battery", "scope": "Device", "capacity": "40"])
        #expect(PowerSupplyBattery.find(in: supplies.root.path) == nil)
        let second = try supplies.add("BAT1", ["type": "Battery", "capacity": "50"])
        #expect(PowerSupplyBattery.find(in: supplies.root.path) == second)
        let first = try supplies.add("BAT0", ["type": "Battery", "capacity": "60"])
        #expect(PowerSupplyBattery.find(in: supplies.root.path) == first)
        #expect(PowerSupplyBattery.find(in: "/nonexistent/power_supply") == nil)
    }

    @Test func theLevelIsTheCapacityElseEnergyOrChargeNowOverFullAndTheStatusIsLinuxs() throws {
        let supplies = try FakePowerSupplies()
        defer { try? FileManager.default.removeItem(at: supplies.root) }
        let capacity = try supplies.add("BAT0", ["type": "Battery", "capacity": "87", "status": "Charging"])
        #expect(PowerSupplyBattery.read(directory: capacity) == BatteryReading(level: 87, status: .charging))
        let energy = try supplies.add("BAT1", ["energy_now": "30000000", "energy_full": "40000000", "status": "Discharging"])
        #expect(PowerSupplyBattery.read(directory: energy) == BatteryReading(level: 75, status: .discharging))
        let charge = try supplies.add("BAT2", ["charge_now": "1000", "charge_full": "3000", "status": "Not charging"])
        #expect(PowerSupplyBattery.read(directory: charge) == BatteryReading(level: 33, status: .unknown))
        // issue 23: no number in these files can trap a conversion (a Double → Int of `inf` did).
        let absurd = try supplies.add("BAT4", ["energy_now": "inf", "energy_full": "1e-300", "status": "Charging"])
        #expect(PowerSupplyBattery.read(directory: absurd) == BatteryReading(level: 100, status: .charging))
        let huge = try supplies.add("BAT5", ["charge_now": "1e308", "charge_full": "1e-300"])
        #expect(PowerSupplyBattery.read(directory: huge)?.level == 100)
        let nan = try supplies.add("BAT6", ["energy_now": "nan", "energy_full": "1"])
        #expect(PowerSupplyBattery.read(directory: nan) == nil)
        let none = try supplies.add("BAT3", ["status": "Full"])
        #expect(PowerSupplyBattery.read(directory: none) == nil)
        #expect(PowerSupplyBattery.read(directory: supplies.root.path + "/missing") == nil)
        #expect(PowerSupplyBattery.status("Full") == .full && PowerSupplyBattery.status(nil) == .unknown)
    }

    @Test func theThreadKeepsTheLatestReading() async throws {
        let supplies = try FakePowerSupplies()
        defer { try? FileManager.default.removeItem(at: supplies.root) }
        let directory = try supplies.add("BAT0", ["capacity": "90", "status": "Discharging"])
        let battery = PowerSupplyBattery(directory: directory, interval: .milliseconds(50))
        try battery.start()
        defer { battery.stop() }
        #expect(await eventually { battery.latest == BatteryReading(level: 90, status: .discharging) })
        try Data("89\n".utf8).write(to: URL(fileURLWithPath: directory + "/capacity"))
        #expect(await eventually { battery.latest?.level == 89 })
    }

    /// A FIFO where `capacity` should be (issue 29: the thread blocked in open() for good and the
    /// reading froze) is no attribute: the level comes from the energy files, and the thread goes
    /// on reading: a later change is seen.
    @Test func aFIFOInPlaceOfAnAttributeNeitherBlocksNorFreezesTheReading() async throws {
        let supplies = try FakePowerSupplies()
        defer { try? FileManager.default.removeItem(at: supplies.root) }
        let directory = try supplies.add("BAT0", ["energy_now": "50", "energy_full": "100", "status": "Discharging"])
        #expect(mkfifo(directory + "/capacity", 0o600) == 0)
        let battery = PowerSupplyBattery(directory: directory, interval: .milliseconds(50))
        try battery.start()
        defer { battery.stop() }
        #expect(await eventually(timeout: .seconds(5)) { battery.latest == BatteryReading(level: 50, status: .discharging) })
        try Data("40\n".utf8).write(to: URL(fileURLWithPath: directory + "/energy_now"))
        #expect(await eventually(timeout: .seconds(5)) { battery.latest?.level == 40 })
    }

    @Test func batteryKeysAreChecked() throws {
        var configuration = DaemonConfiguration(environment: [:])
        #expect(configuration.batteryPath == "auto")
        try configuration.set("battery.path", to: "/sys/class/power_supply/BAT1")
        try configuration.set("battery.interval", to: "30s")
        #expect(configuration.batteryInterval == .seconds(30))
        #expect(throws: ConfigurationError.self) { try configuration.set("battery.path", to: "BAT1") }
        #expect(throws: ConfigurationError.self) { try configuration.set("battery.interval", to: "10ms") }
        try configuration.set("battery.path", to: "off")
        #expect(configuration.battery() == nil)
    }
}
