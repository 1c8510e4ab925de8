import Delivery
@testable import Control
@testable import liveloc
import LiveLocation
import Testing

@Suite struct StatusTextTests {
    static let source = SourceStatus(kind: "gpsd", state: .connected, fix: true, lastFixTime: "2026-12-03T06:29:59.000Z",
                                     lastFixAgeSeconds: 0.4, fixesReceived: 1234, lastError: nil)
    static let sinks = [
        DestinationSummary(name: "stdout", delivered: 17, failed: 0, lastError: nil, delivery: nil),
        DestinationSummary(name: "webhook", delivered: 15, failed: 2, lastError: "HTTP 503",
                   delivery: .init(state: .retrying, pending: 2, acknowledged: 15, dropped: 0, lastError: "HTTP 503")),
    ]

    static func share(lastFix: String?, secondsLeft: Double) -> ShareSummary {
        let id = ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41")
        let fix = lastFix.map { Fix(time: Timestamp(iso8601: $0)!, latitude: 48.1405925, longitude: 11.558804667) }
        let snapshot = ShareSnapshot(id: id, startedAt: Timestamp(iso8601: "2026-12-03T06:00:00.000Z")!,
                                     expiresAt: Timestamp(iso8601: "2026-12-03T07:00:00.000Z")!,
                                     lastFix: fix, lastSentFix: fix, seq: 37, updatesSent: 37)
        var summary = ShareSummary(snapshot, now: nil)
        summary.secondsLeft = secondsLeft
        return summary
    }

    @Test func anActiveShareReadsLikeAChatBubbleWithTheSourceAndDestinationsUnderIt() {
        let status = StatusReport(source: Self.source,
                                  share: Self.share(lastFix: "2026-12-03T06:29:55.600Z", secondsLeft: 12 * 60 + 59.5),
                                  destinations: Self.sinks, clock: "2026-12-03T06:30:00.000Z")
        #expect(StatusText.lines(status) == [
            "Live location · updated 4 s ago · 12 min left",
            "  share     0b6c3a9e · started 2026-12-03T06:00:00.000Z · 37 updates",
            "  ends      2026-12-03T07:00:00.000Z",
            "  position  48.140593, 11.558805 at 2026-12-03T06:29:55.600Z",
            "  source    gpsd · connected · fix just now · 1234 fixes",
            "  stdout    17 delivered",
            "  webhook   retrying · 2 pending · 15 acknowledged · 0 dropped",
            "            last error: HTTP 503",
        ])
        // 80 columns hold every line whole: the end and the dropped count are never cut.
        #expect(StatusText.lines(status).allSatisfy { $0.count < 80 })
    }

    @Test func aRandomIdIsShownByItsFirstEightCharactersACallersIdWhole() {
        #expect(StatusText.shortID("0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41") == "0b6c3a9e")
        #expect(StatusText.shortID("van7-trip.2026") == "van7-trip.2026")
        #expect(StatusText.shortID("0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d4x") == "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d4x")
    }

    @Test func positionsReadToSixDecimals() {
        #expect(StatusText.degrees(48.1405925) == "48.140593")
        #expect(StatusText.degrees(11.558804666666667) == "11.558805")
        #expect(StatusText.degrees(-0.0000004) == "0.000000")
        #expect(StatusText.degrees(-33.8688197) == "-33.868820")
        #expect(StatusText.degrees(7) == "7.000000")
    }

    /// A queue that keeps only the newest position (Telegram's edits, backlog latest) counts the
    /// positions a newer one replaced as coalesced, not as dropped: every position arrived in its edit.
    @Test func aQueueThatKeepsTheNewestPositionCallsItsReplacedOnesCoalesced() {
        let telegram = DestinationSummary(name: "telegram", delivered: 12, failed: 0, lastError: nil,
                                  delivery: .init(state: .active, pending: 0, acknowledged: 12, dropped: 48, lastError: nil, coalesces: true))
        #expect(StatusText.destinationText(telegram) == "active · 0 pending · 12 acknowledged · 48 coalesced")
        #expect(StatusText.destinationText(Self.sinks[1]).contains("0 dropped"))
    }

    /// --watch on a terminal: no line reaches the last column, no more lines than rows above the cursor.
    @Test func watchedLinesAreCutToTheTerminal() {
        let lines = ["Live location · updated 4 s ago · 12 min left", String(repeating: "x", count: 100), "  short"]
        let fitted = StatusCommand.fitted(lines, to: (columns: 40, rows: 24))
        #expect(fitted.map(\.count).allSatisfy { $0 <= 39 })
        #expect(fitted[1] == String(repeating: "x", count: 38) + "…")
        #expect(fitted[0] == "Live location · updated 4 s ago · 12 m…")
        #expect(fitted[2] == "  short")
        let short = StatusCommand.fitted(lines, to: (columns: 200, rows: 3))
        #expect(short.count == 2)
        #expect(short[1].hasPrefix("  … 2 more lines"))
        #expect(StatusCommand.fitted(lines, to: nil) == lines)
    }

    @Test func theHeadlineCountsDownAndAgesInWholeSeconds() {
        func headline(lastFix: String?, left: Double) -> String {
            StatusText.lines(StatusReport(source: Self.source, share: Self.share(lastFix: lastFix, secondsLeft: left),
                                          destinations: [], clock: "2026-12-03T06:30:00.000Z"))[0]
        }
        #expect(headline(lastFix: "2026-12-03T06:29:59.500Z", left: 7 * 3600 + 59 * 60 + 30) == "Live location · updated just now · 7 h 59 min left")
        #expect(headline(lastFix: "2026-12-03T06:27:00.000Z", left: 42.9) == "Live location · updated 3 min ago · 42 s left")
        #expect(headline(lastFix: nil, left: 900) == "Live location · waiting for a position · 15 min left")
        #expect(headline(lastFix: "2026-12-03T06:29:58.000Z", left: 0.4) == "Live location · updated 2 s ago · 0 s left")
        // A fix dated in the clock's future is not "just now".
        #expect(headline(lastFix: "2026-12-03T06:35:00.000Z", left: 900)
                == "Live location · updated at 2026-12-03T06:35:00.000Z, 5 min ahead of the clock · 15 min left")
        #expect(headline(lastFix: "2026-12-03T06:30:01.000Z", left: 900) == "Live location · updated just now · 15 min left")
    }

    @Test func afterAShareEndedTheHeadlineSaysSoWithHowLongAgoAndWhy() {
        let ended = EndedShare(id: ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41"),
                               startedAt: Timestamp(iso8601: "2026-12-03T06:00:00.000Z")!,
                               endedAt: Timestamp(iso8601: "2026-12-03T06:27:00.000Z")!, reason: .sourceEnded)
        var source = Self.source
        source.fix = false
        source.lastFixAgeSeconds = 185
        source.lastError = "gpsd 127.0.0.1:2947: connection refused"
        let status = StatusReport(source: source, share: nil, destinations: [Self.sinks[0]], clock: "2026-12-03T06:30:00.000Z",
                                  ended: EndedShareSummary(ended))
        #expect(StatusText.lines(status) == [
            "Live location ended · 3 min ago · the source ended",
            "  share     0b6c3a9e · 2026-12-03T06:00:00.000Z to 2026-12-03T06:27:00.000Z",
            "  source    gpsd · connected · no fix (last 3 min ago) · 1234 fixes",
            "            last error: gpsd 127.0.0.1:2947: connection refused",
            "  stdout    17 delivered",
        ])
    }

    @Test func withNoShareSinceTheDaemonStartedTheHeadlineSaysHowToStartOne() {
        let status = StatusReport(source: Self.source, share: nil, destinations: [], clock: "2026-12-03T06:30:00.000Z")
        #expect(StatusText.lines(status)[0] == "No live location since livelocd started · liveloc start --duration 15m|1h|8h shares one")
        #expect(StatusText.lines(status).count == 2)
    }

    @Test func aConnectionsStateAndAJournalThatCannotBeWrittenAreShown() {
        var mqtt = DestinationSummary(name: "mqtt", delivered: 3, failed: 0, lastError: nil,
                              delivery: .init(state: .active, pending: 0, acknowledged: 3, dropped: 0, lastError: nil))
        mqtt.link = LinkSummary(state: .refused, reason: "not authorized")
        let status = StatusReport(source: Self.source, share: nil, destinations: [mqtt], clock: "2026-12-03T06:30:00.000Z",
                                  journal: "disk full")
        #expect(Array(StatusText.lines(status).suffix(2)) == [
            "  mqtt      broker refused (not authorized) · active · 0 pending · 3 acknowledged · 0 dropped",
            "  journal   cannot be written: disk full",
        ])
    }

    /// The text is escaped by liveloc itself, whatever the daemon sent (here a status as another
    /// daemon could send it, decoded without the daemon's own escaping).
    @Test func controlCharactersFromTheDaemonAreShownEscapedOnTheirLine() throws {
        var sink = DestinationSummary(name: "telegram", delivered: 0, failed: 1, lastError: nil)
        sink.lastError = "kicked\n\u{1B}[2J  telegram  active\r\u{9B}1A"
        var source = Self.source
        source.lastError = "gpsd error: \u{7}bell"
        let status = StatusReport(source: source, share: nil, destinations: [sink], clock: "2026-12-03T06:30:00.000Z")
        let lines = StatusText.lines(status)
        #expect(lines.count == 5)
        #expect(lines.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } })
        #expect(lines[3] == "  telegram  0 delivered · 1 failed")
        #expect(lines.last == #"            last error: kicked\u{A}\u{1B}[2J  telegram  active\u{D}\u{9B}1A"#)
        #expect(lines[2] == #"            last error: gpsd error: \u{7}bell"#)
    }

    @Test func theClockLineSaysWhereTheShareTakesItsTimeFromAndHowFarOffTheSystemClockIs() {
        #expect(StatusText.clockText(ClockSummary(.receiver(systemClockError: .seconds(-(3 * 3600 + 2 * 60 + 10)))))
                == "from GPS; system clock 3 h 02 min behind")
        #expect(StatusText.clockText(ClockSummary(.receiver(systemClockError: .seconds(45)))) == "from GPS; system clock 45 s ahead")
        #expect(StatusText.clockText(ClockSummary(.receiver(systemClockError: .milliseconds(300))))
                == "from GPS; system clock not synchronized")
        #expect(StatusText.clockText(ClockSummary(.systemClock(synchronized: true))) == "system clock (synchronized)")
        #expect(StatusText.clockText(ClockSummary(.systemClock(synchronized: false))) == "system clock (not synchronized; no fix yet)")
        let status = StatusReport(source: Self.source, share: nil, destinations: [], clock: "2026-12-03T06:30:00.000Z",
                                  clockSource: ClockSummary(.receiver(systemClockError: .seconds(-7200))))
        #expect(StatusText.lines(status).contains("  clock     from GPS; system clock 2 h 00 min behind"))
    }
}
