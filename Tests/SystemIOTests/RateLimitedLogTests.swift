import Foundation
import Locking
import SystemIO
import Testing
import TestSupport

/// One helper keeps repeated log lines from flooding the log, with counts.
@Suite struct RateLimitedLogTests {
    @Test func aFloodOfOneKindWritesItsFirstLineAtOnceAndThenOneSummaryWithTheCount() async throws {
        let lines = LogLines()
        // A window far longer than the 9,813 calls take, even under a sanitizer on a loaded machine
        // (they took more than 300 ms under AddressSanitizer: the window ended inside the flood).
        let log = RateLimitedLog(window: .seconds(5)) { lines.write($0, $1) }
        let start = ContinuousClock.now
        for number in 0..<9813 {
            log(.warning, "refused uid 1001", "refused connection \(number) from uid 1001") { count, window in
                "refused \(count.thousandsSeparated) more connections from uid 1001 in the last \(window.shortText)"
            }
        }
        try #require(ContinuousClock.now - start < .seconds(5), "the flood outlasted the window")
        #expect(lines.all == ["refused connection 0 from uid 1001"])
        let written = await lines.waitFor(count: 2, within: .seconds(15))
        #expect(written == ["refused connection 0 from uid 1001", "refused 9,812 more connections from uid 1001 in the last 5 s"])
    }

    /// A kind with a short window of its own (a share started: about one a second) is written every
    /// time it comes slower than that, while the limiter's long window still holds for the others.
    @Test func aKindWithAWindowOfItsOwnIsSummarisedAfterItAndWrittenAgainWhenItComesSlower() async throws {
        let lines = LogLines()
        let log = RateLimitedLog(window: .seconds(60)) { lines.write($0, $1) }
        let short: Duration = .milliseconds(100)
        for number in 0..<50 {
            log(.notice, "share started", window: short, "share \(number) started") { count, window in
                "\(count) more shares started in the last \(window.shortText)"
            }
            log(.warning, "refused", "refused \(number)") { count, _ in "\(count) more refused" }
        }
        #expect(lines.all == ["share 0 started", "refused 0"])
        let written = await lines.waitFor(count: 3, within: .seconds(10))
        #expect(written.last == "49 more shares started in the last 100 ms")
        // Quiet for a whole window: forgotten, so the next one is written at once (bounded wait).
        let deadline = ContinuousClock.now + .seconds(10)
        while log.trackedKinds > 1, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        log(.notice, "share started", window: short, "share 50 started") { count, _ in "\(count) more" }
        log(.warning, "refused", "refused 50") { count, _ in "\(count) more refused" }
        #expect(lines.all.suffix(1) == ["share 50 started"])
    }

    @Test func kindsAreCountedApartAndAQuietKindIsWrittenAtOnceAgainAfterItsWindow() async throws {
        let lines = LogLines()
        let log = RateLimitedLog(window: .milliseconds(200)) { lines.write($0, $1) }
        let summary: @Sendable (Int, Duration) -> String = { count, _ in "\(count) more" }
        log(.warning, "a", "a 1", summary: summary)
        log(.warning, "b", "b 1", summary: summary)
        log(.warning, "a", "a 2", summary: summary)
        #expect(lines.all == ["a 1", "b 1"])
        _ = await lines.waitFor(count: 3, within: .seconds(5))
        #expect(lines.all == ["a 1", "b 1", "1 more"])
        // A window with nothing counted forgets kind b (a after its next, empty, window): b's next
        // line is written at once. Waited for, bounded: the windows' timers run late on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(10)
        while log.trackedKinds > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(log.trackedKinds == 0)
        log(.warning, "b", "b 2", summary: summary)
        #expect(lines.all.last == "b 2")
    }

    @Test func beyondItsKindLimitLinesAreCountedTogether() async {
        let lines = LogLines()
        let log = RateLimitedLog(window: .milliseconds(200), maximumKinds: 2) { lines.write($0, $1) }
        for kind in 0..<10 { log(.warning, "kind \(kind)", "line of kind \(kind)") { count, _ in "\(count) more" } }
        #expect(lines.all == ["line of kind 0", "line of kind 1"])
        let written = await lines.waitFor(count: 3, within: .seconds(5))
        #expect(written.contains("8 more lines suppressed in the last 200 ms"))
    }

    @Test func numbersAreGroupedByThousands() {
        #expect(0.thousandsSeparated == "0")
        #expect(999.thousandsSeparated == "999")
        #expect(9812.thousandsSeparated == "9,812")
        #expect(1_048_576.thousandsSeparated == "1,048,576")
        #expect((-12345).thousandsSeparated == "-12,345")
    }
}
