#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's real-time clock (UTC), for shares from a live source.
///
/// It sits beside `ShareClock` and `ManualClock` because it is the protocol's other implementation
/// and needs nothing but `clock_gettime` (a vDSO read, no I/O). The core stays deterministic:
/// nothing in it makes a `WallClock`; the engine and the broadcaster run on the clock they are given.
public struct WallClock: ShareClock {
    public init() {}

    public var now: Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSince1970: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }

    public func sleep(until deadline: Timestamp) async throws {
        // Sleeps the whole remaining time, then looks again: only a clock step (NTP, RTC set at boot)
        // makes this loop more than once.
        while true {
            let remaining = deadline - now
            if remaining <= .zero { return }
            try await Task.sleep(for: remaining)
        }
    }
}
