import SystemIO
import Testing

@Suite struct DurationTextTests {
    @Test func theGlanceReadingIsCoarserTheLongerTheDuration() {
        let cases: [(Duration, String)] = [
            (.zero, "0 s"), (.milliseconds(-5), "0 s"), (.milliseconds(250), "250 ms"), (.seconds(1), "1 s"),
            (.milliseconds(4240), "4.2 s"), (.milliseconds(9960), "10 s"), (.seconds(42), "42 s"),
            (.seconds(59), "59 s"), (.seconds(60), "1 min"), (.seconds(12 * 60 + 59), "12 min"),
            (.seconds(3600), "1 h"), (.seconds(8 * 3600 - 1), "7 h 59 min"), (.seconds(86_400 + 3 * 3600), "1 d 3 h"),
        ]
        for (duration, text) in cases { #expect(duration.glanceText == text, "\(duration)") }
    }
}

extension DurationTextTests {
    @Test func theShortReadingIsExactForLogs() {
        #expect(Duration.seconds(60).shortText == "60 s")
        #expect(Duration.milliseconds(1500).shortText == "1.5 s")
        #expect(Duration.milliseconds(250).shortText == "250 ms")
    }
}
