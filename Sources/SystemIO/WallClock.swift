#if canImport(Glibc)
import Glibc
#endif
import LiveLocation

/// The system's real-time clock (UTC), for shares from a live source.
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
