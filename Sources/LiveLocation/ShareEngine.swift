/// The share rules as a pure state machine: every input takes the time it happens at and returns
/// the events it causes, in order. The broadcaster adds the clock, the expiry timer and the stream.
struct ShareEngine: Sendable {
    var throttle: Throttle
    /// What each update reveals of its fix (the final update's included).
    var privacy: PrivacyFilter
    private(set) var active: ShareSnapshot?
    /// The share that ended last, while none is active.
    private(set) var lastEnded: EndedShare?
    /// The clock's correction the active share's times were set on (`ClockReading.correction`); nil
    /// for a share taken over from before a restart, whose times were set on an earlier clock.
    private var timesSetAtCorrection: Duration?
    /// The device's battery, put in every update made (the broadcaster keeps it current).
    var battery: BatteryReading?

    init(throttle: Throttle, privacy: PrivacyFilter = .off) {
        self.throttle = throttle
        self.privacy = privacy
    }

    /// Starts a share, superseding the active one first.
    mutating func start(id: ShareID, duration: Duration, now: Timestamp, correction: Duration = .zero) -> [ShareEvent] {
        let events = end(reason: .superseded, now: now)
        active = ShareSnapshot(id: id, startedAt: now, expiresAt: now + duration)
        timesSetAtCorrection = correction
        lastEnded = nil
        return events
    }

    /// The clock's UTC was corrected (a clock step, the receiver's time after a boot without a
    /// real-time clock): the active share's start and expiry move with it, so that its length and seq
    /// stay. Returns whether they moved.
    mutating func follow(correction: Duration) -> Bool {
        guard active != nil, let base = timesSetAtCorrection, base != correction else { return false }
        active!.startedAt = active!.startedAt + (correction - base)
        active!.expiresAt = active!.expiresAt + (correction - base)
        timesSetAtCorrection = correction
        return true
    }

    /// Moves the active share's end `amount` later, never beyond `ShareDuration.longest` from `now`.
    /// When the share has a position, an `updated` with it and the new `expiresAt` is appended to
    /// `events` (same id, the next seq, `startedAt` unchanged), so that every destination sees the
    /// new end at once; without one, the share's first update carries it. A share whose time is up
    /// is refused (`.ending`) and ended here, its final update and `ended` appended to `events`.
    mutating func extend(by amount: Duration, now: Timestamp, into events: inout [ShareEvent]) -> ShareExtension {
        guard let share = active else { return .noActiveShare }
        if now >= share.expiresAt {
            events += end(reason: .expired, now: share.expiresAt)
            return .ending(share.id)
        }
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

    /// Takes over a share persisted earlier; it expires at once if its time is up.
    mutating func resume(_ snapshot: ShareSnapshot, now: Timestamp) -> [ShareEvent] {
        var events = end(reason: .superseded, now: now)
        active = snapshot
        timesSetAtCorrection = nil
        lastEnded = nil
        events += expireIfDue(now: now)
        return events
    }

    /// A fix from the source: an update for the active share unless throttled. The events are
    /// appended to `events` (the broadcaster reuses one buffer: this runs once per fix). Returns
    /// whether the active share took the fix (as its newest position, sent or throttled).
    @discardableResult
    mutating func accept(_ fix: Fix, now: Timestamp, into events: inout [ShareEvent]) -> Bool {
        guard let expiresAt = active?.expiresAt else { return false }
        if now >= expiresAt {
            events += end(reason: .expired, now: expiresAt)
            return false
        }
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
    mutating func expireIfDue(now: Timestamp) -> [ShareEvent] {
        guard let share = active, now >= share.expiresAt else { return [] }
        return end(reason: .expired, now: share.expiresAt)
    }

    /// Ends the active share: the final update (when it had a position), then `ended`.
    mutating func end(reason: ShareEvent.EndReason, now: Timestamp) -> [ShareEvent] {
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
