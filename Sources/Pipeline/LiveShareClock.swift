import LiveLocation
import SystemIO

extension DisciplinedClock {
    /// The clock of a share from a live source (gpsd, a serial receiver), on this system's clocks.
    package static func system() -> DisciplinedClock {
        DisciplinedClock(read: {
            let sample = SystemClockSample.read()
            return SystemClockReading(systemTime: Timestamp(millisecondsSince1970: sample.realTimeNanoseconds / 1_000_000),
                                      sinceBoot: .nanoseconds(sample.sinceBootNanoseconds),
                                      systemClockSynchronized: sample.synchronized)
        }, sleep: { try await DeadlineTimer.sleep(for: $0) })
    }
}
