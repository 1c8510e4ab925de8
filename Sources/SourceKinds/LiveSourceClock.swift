import LiveLocation
import SystemIO

extension DisciplinedClock {
    /// The clock of a share from a live source (gpsd, a serial receiver), on this system's clocks
    /// and this boot (its id read once). A receiver whose time runs at a pace far from the time
    /// since boot's is said in one warning line (and its recovery in one more).
    package static func system(log: Logger = .shared) -> DisciplinedClock {
        DisciplinedClock(read: {
            let sample = SystemClockSample.read()
            return SystemClockReading(systemTime: Timestamp(millisecondsSince1970: sample.realTimeNanoseconds / 1_000_000),
                                      sinceBoot: .nanoseconds(sample.sinceBootNanoseconds),
                                      systemClockSynchronized: sample.synchronized)
        }, sleep: { try await DeadlineTimer.sleep(for: $0) },
        bootID: SystemClockSample.bootIDText().flatMap { BootID($0) },
        notify: { notice in log.clockNotice(notice) })
    }
}

extension Logger {
    /// One line for a change in the trust put in the receiver's time.
    package func clockNotice(_ change: ClockDiscipline.Notice) {
        switch change {
        case .receiverDistrusted(let rate):
            warning("clock: the receiver's time advances \(Self.rateText(rate)) s per second of real time; "
                    + "not followed while it does (the current estimate is kept)")
        case .receiverTrusted(let rate):
            notice("clock: the receiver's time keeps pace again (\(Self.rateText(rate)) s per second); followed again")
        }
    }

    private static func rateText(_ rate: Double) -> String {
        let hundredths = Int(clampingRounded: rate * 100) ?? 0
        let fraction = abs(hundredths % 100)
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
