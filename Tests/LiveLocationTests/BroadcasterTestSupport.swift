import LiveLocation

let start = Timestamp(iso8601: "2026-03-14T08:00:00.000Z")!

/// A fix at `secondsAfterStart` seconds after `start`, moving north ~11 m per second.
func fix(at secondsAfterStart: Double, northMeters: Double? = nil) -> Fix {
    let metersNorth = northMeters ?? secondsAfterStart * 11.1
    return Fix(time: start + .milliseconds(Int64(secondsAfterStart * 1000)),
               latitude: 52.5 + metersNorth / 111_195, longitude: 13.4, mode: .threeDimensional,
               altitudeMSLMeters: 34, speedMetersPerSecond: 11.1, courseDegreesTrue: 0,
               horizontalAccuracyMeters: 2.5)
}

/// A broadcaster on a manual clock at `start`, for tests that drive time by hand. A test that leaves
/// a share active ends with `finish()` (or `drain`), as a daemon does when it stops: the share's
/// expiry timer sleeps on the clock, and the two would hold each other past the test (LeakSanitizer
/// fails the whole run's exit on it).
func makeBroadcaster(throttle: Throttle = .off, privacy: PrivacyFilter = .off) -> (LiveLocationBroadcaster, ManualClock) {
    let clock = ManualClock(now: start)
    return (LiveLocationBroadcaster(clock: clock, throttle: throttle, privacy: privacy), clock)
}

/// Delivers `fix` at its own time, as a live source would: the clock first, then the fix.
func deliver(_ fix: Fix, to broadcaster: LiveLocationBroadcaster, clock: ManualClock) async {
    clock.advance(to: fix.time)
    await broadcaster.accept(fix)
}

/// Finishes the broadcaster's stream and returns every event it emitted.
func drain(_ broadcaster: LiveLocationBroadcaster) async -> [ShareEvent] {
    await broadcaster.finish()
    var events: [ShareEvent] = []
    for await event in broadcaster.events { events.append(event) }
    return events
}

/// The next event, waiting at most `timeout` (then the stream is finished and nil returned).
func nextEvent(
    _ iterator: inout ShareEvents.Iterator, of broadcaster: LiveLocationBroadcaster,
    timeout: Duration = .seconds(5)
) async -> ShareEvent? {
    let guardTask = Task {
        try await Task.sleep(for: timeout)
        await broadcaster.finish()
    }
    defer { guardTask.cancel() }
    return await iterator.next()
}

extension ShareEvent {
    var location: LiveLocation? {
        if case .updated(_, _, let location) = self { return location }
        return nil
    }

    var endReason: EndReason? {
        if case .ended(_, _, let reason) = self { return reason }
        return nil
    }

    var kind: String { location == nil ? "ended" : (location!.isActive ? "updated" : "final") }
}
