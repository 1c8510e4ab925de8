@testable import GPSD
import LiveLocation
import Testing

@Suite struct ReconnectBackoffTests {
    /// A generator that always gives the same value, so that jitter is exactly 1.0.
    struct Middle: RandomNumberGenerator {
        mutating func next() -> UInt64 { UInt64.max / 2 }
    }

    @Test func delaysDoubleFromAQuarterSecondToAnEightSecondCap() {
        var backoff = ReconnectBackoff()
        var generator = Middle()
        let delays = (0..<9).map { _ in backoff.nextDelay(using: &generator).wholeMilliseconds }
        let expected: [Int64] = [250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]
        for (delay, want) in zip(delays, expected) { #expect(abs(delay - want) <= want / 50) }
    }

    @Test func jitterStaysWithinTwentyPercent() {
        var backoff = ReconnectBackoff()
        for _ in 0..<50 {
            let delay = backoff.nextDelay().wholeMilliseconds
            #expect(delay >= 200 && delay <= 9600)
        }
    }

    @Test func resetStartsAgainFromTheInitialDelay() {
        var backoff = ReconnectBackoff()
        for _ in 0..<5 { _ = backoff.nextDelay() }
        backoff.reset()
        #expect(backoff.nextDelay() <= .milliseconds(300))
    }
}
