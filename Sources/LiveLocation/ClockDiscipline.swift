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

    /// How much time since boot the receiver's pace is measured over (`receiverRate`): long enough
    /// that a fix's delivery jitter (well under a second) moves the rate by a few percent at most.
    public static let rateWindow: Duration = .seconds(20)
    /// How far from 1 the receiver's pace may be (receiver seconds per second since boot) and the
    /// receiver still be followed: a real receiver's UTC keeps to within parts per million.
    public static let rateTolerance = 0.1

    /// UTC at boot, as estimated; nil before the first reading.
    private var bootedAt: Timestamp?
    /// The last fix's time and when it arrived, on the time since boot.
    private var lastFix: (time: Timestamp, sinceBoot: Duration)?
    /// The fix the window of the receiver's pace being measured began with.
    private var rateReference: (time: Timestamp, sinceBoot: Duration)?
    /// How many seconds the receiver's time advanced per second since boot over the last window
    /// measured; nil before one was.
    public private(set) var receiverRate: Double?
    /// The total of the corrections made so far (see `ClockReading.correction`).
    public private(set) var correction: Duration = .zero
    public private(set) var source: UTCSource = .systemClock(synchronized: false)

    public init() {}

    /// UTC at boot, as estimated (the time since boot is added to it to make UTC); nil before the
    /// first reading.
    public var estimatedBootedAt: Timestamp? { bootedAt }

    /// Whether the receiver's time advanced at a pace far from the time since boot's over the last
    /// window measured (a log replayed fast, a receiver whose clock runs wild): its time is then not
    /// followed, and the estimate is kept (or the system clock's taken while synchronized).
    public var receiverIsDistrusted: Bool {
        guard let receiverRate else { return false }
        return abs(receiverRate - 1) > Self.rateTolerance
    }

    /// A change in the trust put in the receiver's time, for one log line each.
    public enum Notice: Sendable, Equatable {
        /// Its time advanced `rate` seconds per second since boot: no longer followed.
        case receiverDistrusted(rate: Double)
        /// Its time keeps pace with the time since boot again (`rate`): followed again.
        case receiverTrusted(rate: Double)
    }

    /// A fix's time, as the receiver tells it, arriving at `reading`. Returns a change in the trust
    /// put in the receiver's time, if its pace over the window just measured made one.
    @discardableResult
    public mutating func observeFix(at time: Timestamp, _ reading: SystemClockReading) -> Notice? {
        lastFix = (time, reading.sinceBoot)
        guard let reference = rateReference, reading.sinceBoot >= reference.sinceBoot else {
            rateReference = (time, reading.sinceBoot)
            return nil
        }
        let span = reading.sinceBoot - reference.sinceBoot
        guard span >= Self.rateWindow else { return nil }
        let wasDistrusted = receiverIsDistrusted
        receiverRate = Double((time - reference.time).wholeMilliseconds) / Double(span.wholeMilliseconds)
        rateReference = (time, reading.sinceBoot)
        switch (wasDistrusted, receiverIsDistrusted) {
        case (false, true): return .receiverDistrusted(rate: receiverRate!)
        case (true, false): return .receiverTrusted(rate: receiverRate!)
        default: return nil
        }
    }

    /// The estimate at `reading`, corrected first when the source it follows moved.
    public mutating func now(_ reading: SystemClockReading) -> Timestamp {
        let systemBootedAt = reading.systemTime - reading.sinceBoot
        let wanted: Timestamp
        if let lastFix {
            let receiverBootedAt = lastFix.time - lastFix.sinceBoot
            let systemClockError = systemBootedAt - receiverBootedAt
            if receiverIsDistrusted {
                // A receiver whose time runs at the wrong pace: a synchronized system clock, or the
                // estimate as it is (no correction follows the receiver's drift).
                if reading.systemClockSynchronized {
                    source = .systemClock(synchronized: true)
                    wanted = systemBootedAt
                } else {
                    let kept = bootedAt ?? receiverBootedAt
                    source = .receiver(systemClockError: systemBootedAt - kept)
                    wanted = kept
                }
            } else if !reading.systemClockSynchronized || exceeds(systemClockError, Self.receiverTolerance) {
                // Following the receiver already, its later moves are followed only once its pace
                // is known to be right (a receiver running fast moves a second every few fixes).
                let followingReceiver = if case .receiver = source { bootedAt != nil } else { false }
                source = .receiver(systemClockError: systemClockError)
                wanted = followingReceiver && receiverRate == nil ? bootedAt! : receiverBootedAt
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
    /// Where `now` comes from and the time since boot it is made of (`now - base.bootedAt`); nil
    /// for a clock that is a timeline of its own (a replayed log, a test's manual clock).
    public var base: ShareTimeBase?

    public init(now: Timestamp, correction: Duration = .zero, base: ShareTimeBase? = nil) {
        self.now = now
        self.correction = correction
        self.base = base
    }

    /// The time since boot, when the clock is made of it.
    public var sinceBoot: Duration? { base.map { now - $0.bootedAt } }
}

extension ShareTimeBase.Source {
    /// Where a discipline's UTC comes from, as a share's times record it.
    public init(_ source: UTCSource) {
        switch source {
        case .systemClock(let synchronized): self = synchronized ? .synchronizedSystemClock : .systemClock
        case .receiver: self = .receiver
        }
    }
}
