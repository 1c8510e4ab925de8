#if canImport(Glibc)
import Glibc
import CTimex
#elseif canImport(Darwin)
import Darwin
#endif

/// One look at the system's clocks, for the clock live shares run on (LiveLocation's
/// `DisciplinedClock`): the system clock, the time since boot, and whether the kernel calls the
/// system clock synchronized.
package struct SystemClockSample: Sendable, Equatable {
    /// CLOCK_REALTIME, nanoseconds since 1970.
    package var realTimeNanoseconds: Int64
    /// CLOCK_BOOTTIME, nanoseconds: time in suspend counts, and no step moves it.
    package var sinceBootNanoseconds: Int64
    /// adjtimex (read only): neither STA_UNSYNC set nor TIME_ERROR returned.
    package var synchronized: Bool

    /// Reads the three (two vDSO reads and one system call that changes nothing).
    package static func read() -> SystemClockSample {
        var real = timespec()
        var boot = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        #if os(Linux)
        clock_gettime(CLOCK_BOOTTIME, &boot)
        var state = timex()  // modes 0: a read
        let result = adjtimex(&state)
        let synchronized = result >= 0 && result != TIME_ERROR && state.status & STA_UNSYNC == 0
        #else
        clock_gettime(CLOCK_MONOTONIC, &boot)
        let synchronized = true
        #endif
        return SystemClockSample(realTimeNanoseconds: Int64(real.tv_sec) * 1_000_000_000 + Int64(real.tv_nsec),
                                 sinceBootNanoseconds: Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec),
                                 synchronized: synchronized)
    }
}

extension SystemClockSample {
    /// Where Linux tells this boot's id (a UUID, new at every boot).
    package static let bootIDPath = "/proc/sys/kernel/random/boot_id"

    /// This boot's id as the kernel writes it; nil where there is none (not Linux, no /proc).
    package static func bootIDText(path: String = bootIDPath) -> String? {
        guard let descriptor = try? FileDescriptor.openRegularFileForReading(path) else { return nil }
        defer { descriptor.close() }
        guard let bytes = try? descriptor.readToEnd(limit: 64, path: path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
