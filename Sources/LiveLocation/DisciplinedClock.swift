import Locking

/// The clock a live share runs on (gpsd, a serial receiver): UTC that is right on a board without a
/// real-time clock, on the time since boot, so that a share's length counts time in suspend and no
/// step of the system clock shortens or stretches it (`ClockDiscipline` has the rules).
///
/// The system's clocks are read by `read` (SystemIO's `systemClockReading`, or a test's): the core
/// stays free of system calls.
public final class DisciplinedClock: ShareClock {
    private let read: @Sendable () -> SystemClockReading
    private let sleepFor: @Sendable (Duration) async throws -> Void
    private let discipline = Locked(ClockDiscipline())
    /// How long one sleep lasts at most before the clock is looked at again: a correction made
    /// meanwhile (a status read, a fix) moves the deadline's place on the time since boot.
    static let longestSleep: Duration = .seconds(60)

    /// - Parameters:
    ///   - read: a look at the system's clocks.
    ///   - sleep: sleeps a duration on the time since boot (SystemIO's `DeadlineTimer`: no periodic
    ///     wake-up while it waits, unlike `Task.sleep` on Linux).
    public init(read: @escaping @Sendable () -> SystemClockReading,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.read = read
        self.sleepFor = sleep
    }

    public var now: Timestamp { reading.now }

    public var reading: ClockReading {
        let system = read()
        return discipline.withLock { Self.reading(&$0, at: system) }
    }

    public var utcSource: UTCSource? {
        let system = read()
        return discipline.withLock { discipline in
            _ = discipline.now(system)
            return discipline.source
        }
    }

    public func observe(_ fix: Fix) -> ClockReading {
        let system = read()
        return discipline.withLock { discipline in
            discipline.observeFix(at: fix.time, system)
            return Self.reading(&discipline, at: system)
        }
    }

    /// The estimate at `system`, with the corrections made so far (the estimate's first).
    private static func reading(_ discipline: inout ClockDiscipline, at system: SystemClockReading) -> ClockReading {
        let now = discipline.now(system)
        return ClockReading(now: now, correction: discipline.correction)
    }

    public func sleep(until deadline: Timestamp) async throws {
        while true {
            let remaining = deadline - now
            if remaining <= .zero { return }
            try await sleepFor(min(remaining, Self.longestSleep))
        }
    }
}
