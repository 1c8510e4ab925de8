import Delivery
import LiveLocation
import Retry
import Testing

@Suite struct BackoffTests {
    /// A generator that always gives the same value, so that jitter is exactly 1.0.
    struct Middle: RandomNumberGenerator {
        mutating func next() -> UInt64 { UInt64.max / 2 }
    }

    // The live sources' reconnects (gpsd; a serial receiver with a 4 s cap).

    @Test func delaysDoubleFromAQuarterSecondToAnEightSecondCap() {
        var backoff = Backoff()
        var generator = Middle()
        // A loop, not a closure capturing `backoff` and `generator`: under ThreadSanitizer that
        // closure handed nextDelay an address TSan's access check faulted on (a SEGV in its runtime).
        var delays: [Int64] = []
        for _ in 0..<9 { delays.append(backoff.nextDelay(using: &generator).wholeMilliseconds) }
        let expected: [Int64] = [250, 500, 1000, 2000, 4000, 8000, 8000, 8000, 8000]
        for (delay, want) in zip(delays, expected) { #expect(abs(delay - want) <= want / 50) }
    }

    @Test func jitterStaysWithinTwentyPercent() {
        var backoff = Backoff()
        for _ in 0..<50 {
            let delay = backoff.nextDelay().wholeMilliseconds
            #expect(delay >= 200 && delay <= 9600)
        }
    }

    @Test func resetStartsAgainFromTheInitialDelay() {
        var backoff = Backoff()
        for _ in 0..<5 { _ = backoff.nextDelay() }
        backoff.reset()
        #expect(backoff.nextDelay() <= .milliseconds(300))
    }

    // The destinations' retries (RetryPolicy: equal jitter, then the server's Retry-After).

    @Test func aDestinationWaitsBetweenHalfTheCeilingAndTheCeilingNeverPastTheCap() {
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(300))
        #expect((1...12).map { policy.backoff.ceiling(afterFailures: $0) }
            == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
        for failures in [1, 3, 9, 10, 1_000_000] {
            let ceiling = policy.backoff.ceiling(afterFailures: failures)
            for _ in 0..<50 {
                let delay = policy.delay(afterFailures: failures, retryAfter: nil)
                #expect(delay >= ceiling / 2 && delay <= ceiling && delay <= .seconds(300))
            }
        }
    }

    @Test func theServersRetryAfterLengthensTheWaitUpToItsLimit() {
        let policy = RetryPolicy(base: .seconds(1), cap: .seconds(300), maxRetryAfter: .seconds(3600))
        var generator = Middle()
        // Longer than the backoff: the server's wait.
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(120), using: &generator) == .seconds(120))
        // Longer than the limit: the limit.
        #expect(policy.delay(afterFailures: 1, retryAfter: .seconds(86_400), using: &generator) == .seconds(3600))
        // Shorter than the backoff: the backoff (0.75 of a 256 s ceiling with jitter 1.0 at the middle).
        let delay = policy.delay(afterFailures: 9, retryAfter: .seconds(1), using: &generator)
        #expect(abs(delay.wholeMilliseconds - 192_000) <= 200)
    }

    @Test func aZeroInitialDelayStaysZeroAndEnds() {
        let backoff = Backoff(initial: .zero, cap: .seconds(1))
        #expect(backoff.delay(afterFailures: Int.max) == .zero)
    }
}
