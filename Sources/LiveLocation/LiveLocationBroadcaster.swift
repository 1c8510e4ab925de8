/// Runs live-location shares: at most one active at a time, an `updated` event for every accepted
/// fix, and a final `updated` (no longer active) followed by `ended` whenever a share ends.
///
/// Time comes from the injected `ShareClock`, so the same rules run on the wall clock, on a replayed
/// log's timeline, or on a test's manual clock. Its output is `batches`: every event of every share,
/// in order, with the share's state after them.
public actor LiveLocationBroadcaster {
    /// Every event of every share with the state after it, in order, for one consumer. Finishes
    /// after `finish()`.
    public nonisolated let batches: ShareBatches
    /// `batches` one event at a time, for a consumer that needs no state (use one or the other).
    public nonisolated var events: ShareEvents { ShareEvents(batches: batches) }
    /// What each update reveals of its fix.
    public nonisolated let privacy: PrivacyFilter

    private let channel: EventChannel
    private let recordsTrack: Bool
    private let clock: any ShareClock
    /// Where each update's battery reading comes from; nil: none.
    private let battery: (any BatteryGauge)?
    private var engine: ShareEngine
    private var expiryTimer: Task<Void, Never>?
    /// The events of the fix being accepted: one buffer reused, not an array allocated per fix.
    private var acceptedEvents: [ShareEvent] = []
    /// The clock's correction when the expiry timer was armed: a later one may move the expiry's
    /// place on the clock.
    private var armedAtCorrection: Duration = .zero
    /// Told each correction of an active share's times (a log line each).
    private let onTimesCorrected: @Sendable (ShareTimesCorrection) -> Void

    /// - Parameters:
    ///   - clock: the time shares start, expire and end at.
    ///   - throttle: which fixes are too close to the last update to send (compared as shared).
    ///   - privacy: what each update reveals of its fix, for every destination.
    ///   - recordsTrack: whether batches carry the fixes each share accepted (`ShareBatch.fixes`).
    ///   - backlogLimit: how many unconsumed events make `pump(from:)` wait for the consumer.
    ///   - battery: the device's battery, read into every update when it is made.
    ///   - onTimesCorrected: told each time an active share's start and expiry move with the clock's
    ///     UTC (`ShareTimesCorrection`), when it happens.
    public init(clock: any ShareClock, throttle: Throttle = .off, privacy: PrivacyFilter = .off,
                recordsTrack: Bool = false, backlogLimit: Int = 256, battery: (any BatteryGauge)? = nil,
                onTimesCorrected: @escaping @Sendable (ShareTimesCorrection) -> Void = { _ in }) {
        self.onTimesCorrected = onTimesCorrected
        self.battery = battery
        self.recordsTrack = recordsTrack
        channel = EventChannel(capacity: backlogLimit)
        batches = ShareBatches(channel: channel)
        self.clock = clock
        self.privacy = privacy
        self.engine = ShareEngine(throttle: throttle, privacy: privacy)
    }

    /// The active share, if any.
    public var activeShare: ShareSnapshot? { engine.active }

    /// The active share, if any, and its own time now (its `expiresAt` less this is the time it has
    /// left): the clock's time, or, for a share taken over whose expiry is on the time since boot
    /// while the clock's UTC is not trusted, its own.
    public var activeShareAndTime: (share: ShareSnapshot, now: Timestamp)? {
        let time = readClock()
        guard let share = engine.active, let now = engine.activeTime(at: time) else { return nil }
        return (share, now)
    }

    /// The share that ended last, while none is active (since this broadcaster was made).
    public var lastEndedShare: EndedShare? { engine.lastEnded }

    /// Starts a share lasting `duration`; an active share is superseded first (its final update and
    /// `ended` are emitted before anything of the new share). Returns the new share and the number of
    /// the batch input that started it (see `ShareBatch.through`).
    @discardableResult
    public func start(_ duration: ShareDuration, id: ShareID = .random()) -> (share: ShareSnapshot, input: UInt64) {
        readBattery()
        let time = readClock()
        var events = engine.start(id: id, duration: duration.duration, at: time)
        let share = engine.active!
        // No fix will come: the share ends at once rather than wait for a position forever.
        if sourceHasEnded { events += engine.end(reason: .sourceEnded, at: time) }
        let input = emit(events, always: true)
        armExpiryTimer(at: time)
        return (share, input)
    }

    /// Takes over a share that was active before a restart: the same id, expiry and seq. If its time
    /// ran out meanwhile, its final update (expiresAt = the original expiry) and `ended` are emitted.
    /// Whether it did is judged on the clock its times were recorded on (`ShareSnapshot.timeBase`):
    /// in the same boot on the time since boot; times from GPS are never judged on a system clock
    /// that is not synchronized, but at the first fix (or at the latest once the time it had left
    /// has passed since the take-over).
    @discardableResult
    public func resume(_ snapshot: ShareSnapshot) -> UInt64 {
        readBattery()
        let time = readClock()
        let (events, correction) = engine.resume(snapshot, at: time)
        if let correction { onTimesCorrected(correction) }
        let input = emit(events, always: true)
        armExpiryTimer(at: time)
        return input
    }

    /// Stops the active share. Returns the share stopped (nil when none was active) and the number of
    /// the input (see `ShareBatch.through`).
    @discardableResult
    public func stop() -> (share: ShareSnapshot?, input: UInt64) {
        readBattery()
        let share = engine.active
        let input = emit(engine.end(reason: .stopped, at: readClock()), always: true)
        armExpiryTimer()
        return (share, input)
    }

    /// Moves the active share's end `amount` later, never beyond `ShareDuration.longest` from now
    /// (see `ShareExtension`). The new end travels in a batch of its own, with the share's newest
    /// position as an `updated` when it has one, so that whoever persists the batch keeps the new
    /// end with it. A share whose time is up is refused and ended now. Returns the outcome and the
    /// number of the input (see `ShareBatch.through`; 0 when refused for want of a share).
    @discardableResult
    public func extend(by amount: ShareDuration) -> (outcome: ShareExtension, input: UInt64) {
        readBattery()
        var events: [ShareEvent] = []
        let outcome = engine.extend(by: amount.duration, at: readClock(), into: &events)
        let input: UInt64
        switch outcome {
        case .extended: input = emit(events, always: true)
        case .ending: input = emit(events)
        case .noActiveShare: input = 0
        }
        armExpiryTimer()
        return (outcome, input)
    }

    /// A fix from the source. Only fixes with a position reach here (mode 2 or 3).
    public func accept(_ fix: Fix) {
        let time = follow(clock.observe(fix))
        readBattery()
        guard !recordsTrack else { return acceptRecordingTrack(fix, at: time) }
        // The engine appends its events straight to the channel's buffer (once per fix: no copy of
        // each event). A throttled fix changes only the share's newest position: no input is
        // counted, the position travels with the next batch.
        var ended = false
        channel.emit { events in
            let first = events.count
            engine.accept(fix, at: time, into: &events)
            if events.count > first, case .ended = events[events.count - 1] { ended = true }
            return engine.active
        }
        if ended { armExpiryTimer() }
    }

    /// `accept` for a broadcaster that records tracks: the fix is kept for the track before its
    /// events are handed on, so that it rides with them.
    private func acceptRecordingTrack(_ fix: Fix, at time: ClockReading) {
        acceptedEvents.removeAll(keepingCapacity: true)
        let taken = engine.accept(fix, at: time, into: &acceptedEvents)
        // A fix for the track rides with the next batch (or makes one when enough are waiting).
        if taken, let taker = engine.active?.id { channel.record(TrackedFix(shareID: taker, fix: fix)) }
        guard let last = acceptedEvents.last else { return }
        emit(acceptedEvents)
        if case .ended = last { armExpiryTimer() }
    }

    /// Whether the source ran out of fixes: a share started since ends at once (`source-ended`).
    public private(set) var sourceHasEnded = false

    /// The source ran out of fixes: the active share ends with reason `source-ended`.
    public func sourceEnded() {
        sourceHasEnded = true
        readBattery()
        emit(engine.end(reason: .sourceEnded, at: readClock()))
        armExpiryTimer()
    }

    /// Feeds every fix of `source` to the broadcaster until the source ends (then the active share
    /// ends with `source-ended`) or the task is cancelled (then the share is left as it is).
    ///
    /// The pump runs on the broadcaster: a source whose iterator implements `next(isolation:)` hands
    /// over each fix without a task switch. Other calls (stop, start) interleave with it whenever the
    /// source waits for its next fix or the consumer is behind.
    ///
    /// A source whose iterator is a `FixBatchIterator` hands over the fixes it holds in one call
    /// each, the same fixes in the same order with the same waits for the consumer.
    public func pump<Source: LocationSource>(from source: Source) async throws {
        var fixes = source.fixes().makeAsyncIterator()
        if var batches = fixes as? any FixBatchIterator {
            try await pumpBatches(&batches)
        } else {
            while let fix = try await fixes.next(isolation: self) {
                accept(fix)
                if !channel.hasRoom { await channel.waitForRoom() }
            }
        }
        try Task.checkCancellation()
        sourceEnded()
    }

    private func pumpBatches<Fixes: FixBatchIterator>(_ fixes: inout Fixes) async throws {
        var full = false
        while try await fixes.nextFixes(isolation: self, { fix in
            accept(fix)
            full = !channel.hasRoom
            return !full
        }) {
            if full { await channel.waitForRoom() }
        }
    }

    /// Finishes `events` once the events emitted so far are consumed. The active share is left as it
    /// is (a daemon that shuts down keeps it persisted, to resume it).
    public func finish() {
        expiryTimer?.cancel()
        expiryTimer = nil
        channel.finish()
    }

    private func expireIfDue() {
        readBattery()
        let time = readClock()
        emit(engine.expireIfDue(at: time))
        armExpiryTimer(at: time)
    }

    /// The clock's time; when its UTC was corrected since the active share's times were set, they
    /// move with it first (and the expiry timer with them).
    private func readClock() -> ClockReading {
        follow(clock.reading)
    }

    /// `time`, once the active share's times (and the expiry timer) have moved with its correction
    /// (each correction told), or the share taken over has found its clock.
    private func follow(_ time: ClockReading) -> ClockReading {
        var rearm = false
        if let correction = engine.settle(time, rearm: &rearm) { onTimesCorrected(correction) }
        if rearm || (time.correction != armedAtCorrection && engine.active != nil) { armExpiryTimer(at: time) }
        return time
    }

    /// The gauge's latest reading into the engine, for the updates the next input makes (one lock,
    /// no system call: the gauge is kept up to date elsewhere).
    private func readBattery() {
        guard let battery else { return }
        engine.battery = battery.latest
    }

    /// Hands on the events of one input with the state after it; `always` also for no events (a
    /// state change alone, such as a start). Returns the input's number.
    @discardableResult
    private func emit(_ newEvents: [ShareEvent], always: Bool = false) -> UInt64 {
        guard always || !newEvents.isEmpty else { return 0 }
        return channel.emit(newEvents, share: engine.active)
    }

    /// One timer for the active share's expiry, so that a share ends on time even when no fix
    /// arrives (gpsd down, receiver without sky view).
    /// The deadline is the share's expiry on the clock's time as `time` (read now when nil) has it;
    /// a share whose expiry is on the time since boot, or that waits for a trusted clock, wakes at
    /// its place on the time since boot, never on an untrusted system clock's reading of its expiry.
    private func armExpiryTimer(at time: ClockReading? = nil) {
        expiryTimer?.cancel()
        expiryTimer = nil
        guard engine.active != nil else { return }
        let time = time ?? clock.reading
        armedAtCorrection = time.correction
        guard let deadline = engine.expiryDeadline(at: time) else { return }
        expiryTimer = Task { [clock] in
            do { try await clock.sleep(until: deadline) } catch { return }
            self.expireIfDue()
        }
    }
}
