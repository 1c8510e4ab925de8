/// The share rules as a pure state machine: every input takes the time it happens at and returns
/// the events it causes, in order. The broadcaster adds the clock, the expiry timer and the stream.
struct ShareEngine: Sendable {
    var throttle: Throttle
    /// What each update reveals of its fix (the final update's included).
    var privacy: PrivacyFilter
    private(set) var active: ShareSnapshot?
    /// The share that ended last, while none is active.
    private(set) var lastEnded: EndedShare?
    /// How the active share's time and expiry are found on the clock's readings.
    private var basis: Basis = .clock(setAtCorrection: nil)
    /// A battery reading for every update made (the broadcaster keeps it current).
    var battery: BatteryReading?

    /// How the active share's own time is found from a clock reading.
    enum Basis: Equatable {
        /// Its times are on the clock's UTC. `setAtCorrection`: the clock's correction they were set
        /// on (later corrections move them); nil for a share taken over whose time base is not known
        /// (persisted by an earlier version): its times stay as they are.
        case clock(setAtCorrection: Duration?)
        /// Taken over in the boot its times were set in, with times from a trusted source while the
        /// clock's UTC is not trusted: its time is its own estimate of UTC at boot (`bootedAt`) plus
        /// the clock's time since boot, so that its expiry is on the time since boot.
        case ownBoot(bootedAt: Timestamp)
        /// Taken over from another boot with times from a trusted source while the clock's UTC is
        /// not trusted: the time since boot says nothing of its times, and the system clock is not
        /// believed. Its expiry is decided once the clock is trusted (the first fix, a synchronized
        /// clock); it ends at the latest when the time since boot reaches `latestSinceBoot` (the time
        /// it had left when last persisted, counted from the take-over).
        case untilTrustedClock(latestSinceBoot: Duration)
    }

    init(throttle: Throttle, privacy: PrivacyFilter = .off) {
        self.throttle = throttle
        self.privacy = privacy
    }

    /// Starts a share, superseding the active one first.
    mutating func start(id: ShareID, duration: Duration, at time: ClockReading) -> [ShareEvent] {
        let events = end(reason: .superseded, at: time)
        active = ShareSnapshot(id: id, startedAt: time.now, expiresAt: time.now + duration, timeBase: time.base)
        basis = .clock(setAtCorrection: time.correction)
        lastEnded = nil
        return events
    }

    /// Brings the active share's times onto `time`'s clock when they must move with it: its UTC was
    /// corrected (a clock step, the receiver's time after a boot without a real-time clock), or the
    /// clock became trusted while a share taken over was waiting for it. Its start and expiry move
    /// together, so that its length and seq stay. Returns the correction when they moved; `rearm`
    /// is set whenever the expiry's place on the clock may have changed.
    mutating func settle(_ time: ClockReading, rearm: inout Bool) -> ShareTimesCorrection? {
        guard active != nil else { return nil }
        switch basis {
        case .clock(let setAt):
            guard let setAt else { return nil }
            if active!.timeBase != time.base, time.base != nil { active!.timeBase = time.base }
            guard setAt != time.correction else { return nil }
            basis = .clock(setAtCorrection: time.correction)
            rearm = true
            return move(by: time.correction - setAt, to: time)
        case .ownBoot(let bootedAt):
            guard let base = time.base else { return nil }
            rearm = true  // the clock's estimate may have moved, and with it the expiry's place on it
            guard base.isTrusted else { return nil }
            basis = .clock(setAtCorrection: time.correction)
            active!.timeBase = base
            let step = base.bootedAt - bootedAt
            return exceeds(step, ClockDiscipline.stepThreshold) ? move(by: step, to: time) : nil
        case .untilTrustedClock:
            guard let base = time.base else { return nil }
            rearm = true
            guard base.isTrusted else { return nil }
            // Its times are UTC, and so is the clock's now: decided on it from here.
            basis = .clock(setAtCorrection: time.correction)
            active!.timeBase = base
            return nil
        }
    }

    /// Moves the active share's end `amount` later, never beyond `ShareDuration.longest` from `now`.
    /// When the share has a position, an `updated` with it and the new `expiresAt` is appended to
    /// `events` (same id, the next seq, `startedAt` unchanged), so that every destination sees the
    /// new end at once; without one, the share's first update carries it. A share whose time is up
    /// is refused (`.ending`) and ended here, its final update and `ended` appended to `events`.
    /// Judged on the share's own time (`activeTime(at:)`: on the time since boot for a share taken
    /// over in the same boot, never on an untrusted clock).
    mutating func extend(by amount: Duration, at time: ClockReading, into events: inout [ShareEvent]) -> ShareExtension {
        guard let share = active else { return .noActiveShare }
        if isDue(expiresAt: share.expiresAt, at: time) {
            events += end(reason: .expired, now: share.expiresAt)
            return .ending(share.id)
        }
        let now = activeTime(at: time) ?? time.now
        let limit = now + ShareDuration.longest.duration
        let wanted = share.expiresAt + amount
        let expiresAt = min(wanted, limit)
        guard expiresAt > share.expiresAt else {
            return .extended(share, previousExpiresAt: share.expiresAt, capped: true)
        }
        active!.expiresAt = expiresAt
        if let fix = share.lastFix {
            active!.lastSentFix = fix
            active!.seq += 1
            active!.updatesSent += 1
            events.append(.updated(shareID: share.id, seq: active!.seq,
                                   location: location(startedAt: share.startedAt, from: fix, expiresAt: expiresAt, now: now)))
        }
        return .extended(active!, previousExpiresAt: share.expiresAt, capped: wanted > limit)
    }

    private func exceeds(_ difference: Duration, _ limit: Duration) -> Bool {
        difference > limit || difference < .zero - limit
    }

    private mutating func move(by step: Duration, to time: ClockReading) -> ShareTimesCorrection {
        active!.startedAt = active!.startedAt + step
        active!.expiresAt = active!.expiresAt + step
        return ShareTimesCorrection(shareID: active!.id, by: step, startedAt: active!.startedAt,
                                    expiresAt: active!.expiresAt, source: time.base?.source)
    }

    /// Takes over a share persisted earlier; it expires at once if its time is known to be up. Its
    /// times are judged by the clock they were recorded on (`ShareSnapshot.timeBase`): in the same
    /// boot, its expiry is on the time since boot; from another boot, times from the receiver or a
    /// synchronized clock wait for a trusted clock (never decided on an unsynchronized system clock,
    /// which may be hours ahead or behind). A share without a recorded base is taken as it is.
    /// Returns the events, and the correction when its times moved onto the clock's.
    mutating func resume(_ snapshot: ShareSnapshot, at time: ClockReading) -> (events: [ShareEvent], correction: ShareTimesCorrection?) {
        var events = end(reason: .superseded, at: time)
        active = snapshot
        lastEnded = nil
        var correction: ShareTimesCorrection?
        basis = .clock(setAtCorrection: nil)
        if let saved = snapshot.timeBase, let now = time.base, let sinceBoot = time.sinceBoot {
            if saved.isSameBoot(as: now) {
                if saved.isTrusted && !now.isTrusted {
                    basis = .ownBoot(bootedAt: saved.bootedAt)
                } else {
                    // Both on this boot's time since boot: the times follow the clock's estimate, as
                    // they would have had the process kept running.
                    let step = now.bootedAt - saved.bootedAt
                    if exceeds(step, ClockDiscipline.stepThreshold) { correction = move(by: step, to: time) }
                    active!.timeBase = now
                    basis = .clock(setAtCorrection: time.correction)
                }
            } else if saved.isTrusted {
                if now.isTrusted {
                    active!.timeBase = now
                    basis = .clock(setAtCorrection: time.correction)
                } else {
                    let lastKnown = max(snapshot.startedAt, snapshot.lastFix?.time ?? snapshot.startedAt)
                    let left = max(.zero, snapshot.expiresAt - lastKnown)
                    basis = .untilTrustedClock(latestSinceBoot: sinceBoot + left)
                }
            }
        }
        events += expireIfDue(at: time)
        return (events, correction)
    }

    /// The active share's own time at `time` (nil while it waits for a trusted clock).
    private func shareNow(_ time: ClockReading) -> Timestamp? {
        switch basis {
        case .clock: return time.now
        case .ownBoot(let bootedAt): return time.sinceBoot.map { bootedAt + $0 } ?? time.now
        case .untilTrustedClock: return nil
        }
    }

    /// Whether the active share's time is up at `time`.
    private func isDue(expiresAt: Timestamp, at time: ClockReading) -> Bool {
        if case .untilTrustedClock(let latest) = basis { return (time.sinceBoot ?? .zero) >= latest }
        return shareNow(time)! >= expiresAt
    }

    /// The active share's own time at `time` (what its time left is counted from): for a share
    /// waiting for a trusted clock, the earliest it can be (its expiry less the most it can have left).
    func activeTime(at time: ClockReading) -> Timestamp? {
        guard let share = active else { return nil }
        if case .untilTrustedClock(let latest) = basis {
            return share.expiresAt - max(.zero, latest - (time.sinceBoot ?? .zero))
        }
        return shareNow(time)
    }

    /// When the active share's expiry timer must wake, on the clock's time (its estimate at `time`):
    /// for a share whose expiry is on the time since boot, where that time since boot is now.
    func expiryDeadline(at time: ClockReading) -> Timestamp? {
        guard let share = active else { return nil }
        switch basis {
        case .clock: return share.expiresAt
        case .ownBoot(let bootedAt):
            guard let base = time.base else { return share.expiresAt }
            return base.bootedAt + (share.expiresAt - bootedAt)
        case .untilTrustedClock(let latest):
            guard let base = time.base else { return share.expiresAt }
            return base.bootedAt + latest
        }
    }

    /// A fix from the source: an update for the active share unless throttled. The events are
    /// appended to `events` (the broadcaster reuses one buffer: this runs once per fix). Returns
    /// whether the active share took the fix (as its newest position, sent or throttled).
    @discardableResult
    mutating func accept(_ fix: Fix, at time: ClockReading, into events: inout [ShareEvent]) -> Bool {
        guard let expiresAt = active?.expiresAt else { return false }
        if isDue(expiresAt: expiresAt, at: time) {
            events += end(reason: .expired, now: expiresAt)
            return false
        }
        let now = activeTime(at: time)!
        // In place: copying the snapshot out and back would cost copies and retains per fix.
        active!.lastFix = fix
        // The throttle compares what is shared, so that when updates are sent reveals nothing the
        // shared positions do not (the privacy filter is deterministic: the last update's shared
        // position is its true fix filtered again).
        let dropped: Bool
        if throttle.isOff {
            dropped = false
        } else if privacy.isOff {
            dropped = throttle.drops(fix, after: active!.lastSentFix)
        } else {
            dropped = throttle.drops(privacy.shared(fix), after: active!.lastSentFix.map(privacy.shared))
        }
        guard !dropped else { return true }
        active!.lastSentFix = fix
        active!.seq += 1
        active!.updatesSent += 1
        events.append(.updated(shareID: active!.id, seq: active!.seq,
                               location: location(startedAt: active!.startedAt, from: fix, expiresAt: expiresAt, now: now)))
        return true
    }

    /// Ends the active share when its time is up; its final update carries the original expiry.
    mutating func expireIfDue(at time: ClockReading) -> [ShareEvent] {
        guard let expiresAt = active?.expiresAt, isDue(expiresAt: expiresAt, at: time) else { return [] }
        return end(reason: .expired, now: expiresAt)
    }

    /// Ends the active share at `time` for `reason` (expired instead, when its time is up): the
    /// final update (when it had a position), then `ended`. A share waiting for a trusted clock ends
    /// dated at the earliest its time can be (`activeTime(at:)`), never by an untrusted clock.
    mutating func end(reason: ShareEvent.EndReason, at time: ClockReading) -> [ShareEvent] {
        guard let expiresAt = active?.expiresAt else { return [] }
        if isDue(expiresAt: expiresAt, at: time) { return end(reason: .expired, now: expiresAt) }
        return end(reason: reason, now: activeTime(at: time)!)
    }

    /// Ends the active share at its own time `now`: the final update (when it had a position), then
    /// `ended`.
    private mutating func end(reason: ShareEvent.EndReason, now: Timestamp) -> [ShareEvent] {
        guard var share = active else { return [] }
        if reason != .expired, now >= share.expiresAt {
            return end(reason: .expired, now: share.expiresAt)
        }
        active = nil
        lastEnded = EndedShare(id: share.id, startedAt: share.startedAt, endedAt: now, reason: reason)
        var events: [ShareEvent] = []
        if let fix = share.lastFix {
            share.seq += 1
            events.append(.updated(shareID: share.id, seq: share.seq,
                                   location: location(startedAt: share.startedAt, from: fix, expiresAt: now, now: now)))
        }
        share.seq += 1
        events.append(.ended(shareID: share.id, seq: share.seq, reason: reason))
        return events
    }

    /// What the share's watchers get: the fix through the privacy filter, and the share's times.
    private func location(startedAt: Timestamp, from trueFix: Fix, expiresAt: Timestamp, now: Timestamp) -> LiveLocation {
        if privacy.isOff { return location(startedAt: startedAt, shared: trueFix, expiresAt: expiresAt, now: now) }
        return location(startedAt: startedAt, shared: privacy.shared(trueFix), expiresAt: expiresAt, now: now)
    }

    @inline(__always)
    private func location(startedAt: Timestamp, shared fix: borrowing Fix, expiresAt: Timestamp, now: Timestamp) -> LiveLocation {
        LiveLocation(
            latitude: fix.latitude, longitude: fix.longitude, lastUpdateAt: fix.time,
            startedAt: startedAt, expiresAt: expiresAt, isActive: now < expiresAt,
            accuracyMeters: fix.horizontalAccuracyMeters, altitudeMeters: fix.altitudeMSLMeters,
            speedMetersPerSecond: fix.speedMetersPerSecond, courseDegreesTrue: fix.courseDegreesTrue,
            hdop: fix.hdop, battery: battery)
    }
}
