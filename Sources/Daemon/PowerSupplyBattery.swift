#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
import Locking
import Synchronization
import SystemIO

/// The device's battery as Linux's power supply class shows it (`/sys/class/power_supply/<name>/`,
/// Documentation/ABI/testing/sysfs-class-power): `capacity` (percent; else `energy_now` /
/// `energy_full` or `charge_now` / `charge_full`) and `status` (`Charging`, `Discharging`, `Full`,
/// `Not charging`, `Unknown`).
///
/// A thread of its own reads it every `interval` (a minute: a battery changes slowly, and the
/// device wakes up for it once a minute, not per fix) and keeps the latest reading behind a lock;
/// the broadcaster takes that reading into each update it makes. Reading a file never blocks an
/// async thread.
package final class PowerSupplyBattery: BatteryGauge {
    /// Where Linux lists the power supplies.
    package static let classDirectory = "/sys/class/power_supply"
    package static let defaultInterval: Duration = .seconds(60)

    package let directory: String
    package let interval: Duration
    private let reading = Locked<BatteryReading?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let log: Logger

    /// - Parameter log: one line when the battery stops or starts being readable.
    package init(directory: String, interval: Duration = PowerSupplyBattery.defaultInterval,
                 log: Logger = .silent) {
        self.directory = directory
        self.interval = interval
        self.log = log
    }

    package var latest: BatteryReading? { reading.withLock { $0 } }

    /// Starts the thread that reads at once and then every `interval` until `stop`.
    /// - Throws: `SystemError` when the thread cannot start.
    package func start() throws(SystemError) {
        try startDetachedThread(name: "livelocd-batt") { [self] in
            var readable: Bool?
            while !stopping.load(ordering: .relaxed) {
                let now = refresh() != nil
                if now != readable {
                    if !now { log.warning("battery: \(directory) has no readable charge (capacity); its fields are left out until it has") }
                    else if readable == false { log.notice("battery: \(directory) is readable again") }
                    readable = now
                }
                sleepInterval()
            }
        }
    }

    /// Ends the thread at its next wake-up.
    package func stop() {
        stopping.store(true, ordering: .relaxed)
    }

    /// Reads the power supply now and keeps the result (nil when it cannot be read).
    @discardableResult
    package func refresh() -> BatteryReading? {
        let value = Self.read(directory: directory)
        reading.withLock { $0 = value }
        return value
    }

    private func sleepInterval() {
        let milliseconds = max(interval.wholeMilliseconds, 1)
        var request = timespec(tv_sec: Int(milliseconds / 1000), tv_nsec: Int(milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    // MARK: - Reading the files (pure but for the reads)

    /// The first power supply of type `Battery` in `classDirectory` (by name: `BAT0` before `BAT1`)
    /// that powers the system (not a `scope` of `Device`, such as a wireless mouse's); nil if none.
    package static func find(in classDirectory: String = PowerSupplyBattery.classDirectory) -> String? {
        guard let stream = opendir(classDirectory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        for name in names.sorted() {
            let directory = classDirectory + "/" + name
            guard text(directory + "/type") == "Battery", text(directory + "/scope") != "Device" else { continue }
            return directory
        }
        return nil
    }

    /// The reading in one power supply directory; nil when it has no charge to read.
    package static func read(directory: String) -> BatteryReading? {
        guard let level = level(directory: directory) else { return nil }
        return BatteryReading(level: level, status: status(text(directory + "/status")))
    }

    /// Linux's `status` text as a reading's status.
    package static func status(_ text: String?) -> BatteryReading.Status {
        switch text {
        case "Charging": .charging
        case "Discharging": .discharging
        case "Full": .full
        default: .unknown
        }
    }

    private static func level(directory: String) -> Int? {
        if let capacity = text(directory + "/capacity").flatMap({ Int($0) }) { return capacity }
        for (now, full) in [("energy_now", "energy_full"), ("charge_now", "charge_full")] {
            guard let current = text(directory + "/" + now).flatMap({ Double($0) }),
                  let whole = text(directory + "/" + full).flatMap({ Double($0) }), whole > 0 else { continue }
            // Any numbers a driver writes ("inf", 1e308 over 1e-300) give a level, never a trap.
            guard let level = Int(clampingRounded: current / whole * 100) else { continue }
            return level
        }
        return nil
    }

    /// A sysfs attribute's text without its line end; nil when it cannot be read or is no regular
    /// file (a FIFO there would hold the reading thread in `open` for good).
    private static func text(_ path: String) -> String? {
        guard let descriptor = try? FileDescriptor.openRegularFileForReading(path) else { return nil }
        defer { descriptor.close() }
        guard let bytes = try? descriptor.readToEnd(limit: 4096, path: path) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.last, last == "\n" || last == " " || last == "\r" { text.removeLast() }
        return text
    }
}
