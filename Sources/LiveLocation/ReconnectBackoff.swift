/// Capped exponential backoff with jitter for a live source that reconnects (gpsd, a serial
/// receiver): 0.25 s, 0.5 s, 1 s, … up to the cap (8 s by default), each delay scaled by a random
/// factor in 0.8...1.2 so that many clients of one server do not reconnect in step.
package struct ReconnectBackoff: Sendable {
    package var initial: Duration = .milliseconds(250)
    package var cap: Duration = .seconds(8)
    private var attempt = 0

    package init(initial: Duration = .milliseconds(250), cap: Duration = .seconds(8)) {
        self.initial = initial
        self.cap = cap
    }

    /// The delay before the next attempt; each call doubles the base until the cap.
    package mutating func nextDelay<R: RandomNumberGenerator>(using generator: inout R) -> Duration {
        var base = initial
        for _ in 0..<min(attempt, 16) where base < cap { base = base * 2 }
        base = min(base, cap)
        attempt += 1
        return base * Double.random(in: 0.8...1.2, using: &generator)
    }

    package mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// After a connection that delivered data: start again from `initial`.
    package mutating func reset() { attempt = 0 }
}
