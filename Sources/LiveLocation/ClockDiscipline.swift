/// One look at the system's clocks: what the system clock says, the time since boot (suspend
/// included), and whether the kernel calls the system clock synchronized.
public struct SystemClockReading: Sendable, Equatable {
    /// CLOCK_REALTIME: the system clock, which is 1970 or the last shutdown's time on a board without
    /// a battery-backed clock until NTP (or chrony fed by gpsd) sets it, and which may be stepped.
    public var systemTime: Timestamp
    /// CLOCK_BOOTTIME: never stepped, and time in suspend counts.
    public var sinceBoot: Duration
    /// adjtimex's answer: false while STA_UNSYNC is set (nothing disciplines the clock).
    public var systemClockSynchronized: Bool

    public init(systemTime: Timestamp, sinceBoot: Duration, systemClockSynchronized: Bool) {
        self.systemTime = systemTime
        self.sinceBoot = sinceBoot
        self.systemClockSynchronized = systemClockSynchronized
    }
}

/// Where a live share's UTC comes from.
public enum UTCSource: Sendable, Equatable {
    /// The system clock: synchronized, or agreeing with the receiver, or no fix seen yet.
    case systemClock(synchronized: Bool)
    /// The receiver's time plus the time since boot elapsed since its fix: the system clock is not
    /// synchronized or differs from the receiver by more than `ClockDiscipline.receiverTolerance`.
    /// `systemClockError` is the system clock minus that UTC (negative: the system clock is behind).
    case receiver(systemClockError: Duration)
}

/// The rules of a live share's time, pure: UTC is the time since boot plus an estimate of when the
/// system booted. The estimate comes from the system clock while it is synchronized and agrees with
/// the receiver, and from the fixes otherwise. It changes only when the source it follows moves by
/// more than `stepThreshold` (a clock step, the first fix after a boot without a real-time clock):
/// between such corrections UTC advances exactly as the time since boot, suspend included.
public struct ClockDiscipline: Sendable {
    /// How far the system clock may differ from the receiver's UTC and still be believed.
    public static let receiverTolerance: Duration = .seconds(2)
    /// How far the followed source must move before the estimate is corrected (more than the jitter
    /// of a fix's delivery, far less than a clock step).
    public static let stepThreshold: Duration = .seconds(1)

    /// UTC at boot, as estimated; nil before the first reading.
    private var bootedAt: Timestamp?
    /// The last fix's time and when it arrived, on the time since boot.
    private var lastFix: (time: Timestamp, sinceBoot: Duration)?
    /// The total of the corrections made so far (see `ClockReading.correction`).
    public private(set) var correction: Duration = .zero
    public private(set) var source: UTCSource = .systemClock(synchronized: false)

    public init() {}

    /// A fix's time, as the receiver tells it, arriving at `reading`.
    public mutating func observeFix(at time: Timestamp, _ reading: SystemClockReading) {
        lastFix = (time, reading.sinceBoot)
    }

    /// The estimate at `reading`, corrected first when the source it follows moved.
    public mutating func now(_ reading: SystemClockReading) -> Timestamp {
        let systemBootedAt = reading.systemTime - reading.sinceBoot
        let wanted: Timestamp
        if let lastFix {
            let receiverBootedAt = lastFix.time - lastFix.sinceBoot
            let systemClockError = systemBootedAt - receiverBootedAt
            if !reading.systemClockSynchronized || exceeds(systemClockError, Self.receiverTolerance) {
                source = .receiver(systemClockError: systemClockError)
                wanted = receiverBootedAt
            } else {
                source = .systemClock(synchronized: true)
                wanted = systemBootedAt
            }
        } else {
            source = .systemClock(synchronized: reading.systemClockSynchronized)
            wanted = systemBootedAt
        }
        if let bootedAt {
            let step = wanted - bootedAt
            if exceeds(step, Self.stepThreshold) {
                correction += step
                self.bootedAt = wanted
            }
        } else {
            bootedAt = wanted
        }
        return bootedAt! + reading.sinceBoot
    }

    private func exceeds(_ difference: Duration, _ limit: Duration) -> Bool {
        difference > limit || difference < .zero - limit
    }
}

/// What a clock tells: the time, and the total of the corrections it made to its UTC so far.
public struct ClockReading: Sendable, Equatable {
    public var now: Timestamp
    /// How far the clock's UTC has been moved since it started, on top of the time that passed: a
    /// share started on this clock moves its start and expiry with it (its length stays).
    public var correction: Duration

    public init(now: Timestamp, correction: Duration = .zero) {
        self.now = now
        self.correction = correction
    }
}
