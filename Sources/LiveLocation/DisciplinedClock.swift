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
    /// This boot (/proc/sys/kernel/random/boot_id), read once by the caller; nil when unknown.
    private let bootID: BootID?
    /// Told each change in the trust put in the receiver's time (a log line).
    private let notify: @Sendable (ClockDiscipline.Notice) -> Void
    /// How long one sleep lasts at most before the clock is looked at again: a correction made
    /// meanwhile (a status read, a fix) moves the deadline's place on the time since boot.
    static let longestSleep: Duration = .seconds(60)

    /// - Parameters:
    ///   - read: a look at the system's clocks.
    ///   - sleep: sleeps a duration on the time since boot (SystemIO's `DeadlineTimer`: no periodic
    ///     wake-up while it waits, unlike `Task.sleep` on Linux).
    ///   - bootID: this boot, which a share's times record so that its expiry is found on the time
    ///     since boot after a restart (nil: unknown, never the same boot as anything).
    ///   - notify: told when the receiver's time stops (or starts again) being followed because of
    ///     its pace (`ClockDiscipline.Notice`).
    public init(read: @escaping @Sendable () -> SystemClockReading,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                bootID: BootID? = nil, notify: @escaping @Sendable (ClockDiscipline.Notice) -> Void = { _ in }) {
        self.read = read
        self.sleepFor = sleep
        self.bootID = bootID
        self.notify = notify
    }

    public var now: Timestamp { reading.now }

    public var reading: ClockReading {
        let system = read()
        return discipline.withLock { clockReading(&$0, at: system) }
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
        let (after, notice) = discipline.withLock { discipline in
            let notice = discipline.observeFix(at: fix.time, system)
            return (clockReading(&discipline, at: system), notice)
        }
        if let notice { notify(notice) }
        return after
    }

    /// The estimate at `system`, with the corrections made so far (the estimate's first) and the
    /// base it is on.
    private func clockReading(_ discipline: inout ClockDiscipline, at system: SystemClockReading) -> ClockReading {
        let now = discipline.now(system)
        let base = ShareTimeBase(source: ShareTimeBase.Source(discipline.source), bootID: bootID,
                                 bootedAt: discipline.estimatedBootedAt ?? now - system.sinceBoot)
        return ClockReading(now: now, correction: discipline.correction, base: base)
    }

    public func sleep(until deadline: Timestamp) async throws {
        while true {
            let remaining = deadline - now
            if remaining <= .zero { return }
            try await sleepFor(min(remaining, Self.longestSleep))
        }
    }
}
