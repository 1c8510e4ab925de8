#if canImport(Glibc)
import Glibc
#endif

/// The wall clock in Unix seconds (post timestamps, expiries, retention).
enum RelayClock {
    static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec)
    }
}
