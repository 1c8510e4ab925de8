import JSONCoding
import LiveLocation
import Testing
import TestSupport

/// The moment the events below start at.
private let start = Timestamp(iso8601: "2026-03-14T08:00:00.000Z")!

@Suite struct EventJSONTests {
    let id = ShareID(rawValue: "0b6c1f1e-3d0a-4c55-9a51-5b7f2f0e8a11")

    @Test func updatedEventHasTheDocumentedFieldsInOrder() {
        let location = LiveLocation(
            latitude: 52.520008, longitude: 13.404954, lastUpdateAt: start + .milliseconds(1250),
            startedAt: start, expiresAt: start + .seconds(900), isActive: true, accuracyMeters: 2.5,
            altitudeMeters: 34.2, speedMetersPerSecond: 11.1, courseDegreesTrue: 271.5)
        #expect(ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine == """
            {"event":"updated","shareId":"0b6c1f1e-3d0a-4c55-9a51-5b7f2f0e8a11","seq":1,"location":{"latitude":52.520008,\
            "longitude":13.404954,"lastUpdateAt":"2026-03-14T08:00:01.250Z","startedAt":"2026-03-14T08:00:00.000Z",\
            "expiresAt":"2026-03-14T08:15:00.000Z","isActive":true,"accuracy":2.5,"altitude":34.2,"speed":11.1,"course":271.5}}

            """)
    }

    @Test func unknownOptionalFieldsAreOmitted() {
        let location = LiveLocation(latitude: -33.5, longitude: -70.25, lastUpdateAt: start, startedAt: start,
                                    expiresAt: start, isActive: false)
        let line = ShareEvent.updated(shareID: id, seq: 9, location: location).jsonLine
        #expect(line.hasSuffix(#""latitude":-33.5,"longitude":-70.25,"lastUpdateAt":"2026-03-14T08:00:00.000Z","startedAt":"2026-03-14T08:00:00.000Z","expiresAt":"2026-03-14T08:00:00.000Z","isActive":false}}"# + "\n"))
    }

    @Test func nonFiniteNumbersAreOmittedRatherThanWrittenAsInvalidJSON() {
        let location = LiveLocation(latitude: 1, longitude: 2, lastUpdateAt: start, startedAt: start,
                                    expiresAt: start, isActive: false, accuracyMeters: .nan, speedMetersPerSecond: .infinity)
        let line = ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine
        #expect(!line.contains("accuracy") && !line.contains("speed") && !line.contains("nan"))
    }

    @Test func aBatchsLinesAreItsEventsLinesInOrderAcrossADayBoundary() {
        // The batch writer keeps one line buffer and each day's date: crossing midnight (and back to
        // the share's start day in startedAt) must give every timestamp its own date.
        let beforeMidnight = Timestamp(iso8601: "2026-03-14T23:59:59.100Z")!
        let times: [Timestamp] = (0..<5).map { beforeMidnight + Duration.milliseconds(450 * $0) }
        let updates = times.enumerated().map { index, time in
            ShareEvent.updated(shareID: id, seq: index + 1, location: LiveLocation(
                latitude: -1.25 * Double(index), longitude: 13.5, lastUpdateAt: time, startedAt: start,
                expiresAt: start + .seconds(86_400), isActive: true, accuracyMeters: index % 2 == 0 ? 3 : nil))
        }
        let events: [ShareEvent] = updates + [.ended(shareID: ShareID(rawValue: "a \"quoted\"\nid"), seq: 6, reason: .stopped)]
        var output: [UInt8] = []
        ShareEvent.appendJSONLines(events, to: &output)
        let text = String(decoding: output, as: UTF8.self)
        #expect(text == events.map(\.jsonLine).joined())
        let lines = text.split(separator: "\n")
        #expect(lines.count == 6)
        for (line, time) in zip(lines, times) {
            #expect(line.contains(#""lastUpdateAt":"\#(time.iso8601)","startedAt":"2026-03-14T08:00:00.000Z","expiresAt":"2026-03-15T08:00:00.000Z""#))
        }
        #expect(lines[4].contains("2026-03-15T00:00:00.900Z"))
        #expect(lines[5] == #"{"event":"ended","shareId":"a \"quoted\"\u000aid","seq":6,"reason":"stopped"}"#)
    }

    @Test func hdopAndTheBatteryFollowTheCourseWhenKnown() {
        let location = LiveLocation(latitude: 1, longitude: 2, lastUpdateAt: start, startedAt: start, expiresAt: start + .seconds(60),
                                    isActive: true, courseDegreesTrue: 12, hdop: 0.87,
                                    battery: BatteryReading(level: 64, status: .discharging))
        let line = ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine
        #expect(line.hasSuffix(#""course":12,"hdop":0.87,"battery":{"level":64,"status":"discharging"}}}"# + "\n"))
    }

    @Test func theCourseIsAlwaysBelow360AfterRounding() {
        for (course, written) in [(359.9999, "0"), (360.0, "0"), (359.9994, "359.999"), (-0.5, "359.5"), (720.25, "0.25")] {
            let location = LiveLocation(latitude: 1, longitude: 2, lastUpdateAt: start, startedAt: start, expiresAt: start,
                                        isActive: false, courseDegreesTrue: course)
            let line = ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine
            #expect(line.contains(#""course":\#(written)}"#), "\(course): \(line)")
        }
        #expect(Course.normalized(359.99, fractionDigits: 1) == 0)
        #expect(Course.normalized(359.94, fractionDigits: 1) == 359.9)
        #expect(Course.normalized(.nan, fractionDigits: 1) == nil && Course.normalized(nil, fractionDigits: 1) == nil)
    }

    @Test func aBatteryReadingIsClampedToAPercent() {
        #expect(BatteryReading(level: 140, status: .full).level == 100)
        #expect(BatteryReading(level: -3, status: .unknown).level == 0)
    }

    @Test func endedEventCarriesItsReason() {
        #expect(ShareEvent.ended(shareID: id, seq: 42, reason: .sourceEnded).jsonLine ==
            #"{"event":"ended","shareId":"0b6c1f1e-3d0a-4c55-9a51-5b7f2f0e8a11","seq":42,"reason":"source-ended"}"# + "\n")
    }

    @Test func fixRendersInGpsdTPVVocabulary() {
        let fix = Fix(time: start, latitude: 52.5, longitude: 13.4, mode: .twoDimensional, altitudeMSLMeters: 30,
                      altitudeHAEMeters: 74.5, speedMetersPerSecond: 0.1234, courseDegreesTrue: 10,
                      horizontalAccuracyMeters: 3, hdop: 0.9, satellitesUsed: 12)
        #expect(String(decoding: fix.tpvJSONLineBytes, as: UTF8.self) ==
            #"{"class":"TPV","time":"2026-03-14T08:00:00.000Z","mode":2,"lat":52.5,"lon":13.4,"altMSL":30,"altHAE":74.5,"speed":0.123,"track":10,"eph":3,"hdop":0.9,"satellites":12}"# + "\n")
    }

    @Test func smallNegativeNumbersKeepTheirSignAndLeadingZeros() {
        let location = LiveLocation(latitude: -0.000012345, longitude: 0.5, lastUpdateAt: start, startedAt: start,
                                    expiresAt: start, isActive: false)
        #expect(ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine.contains(#""latitude":-0.000012345,"#))
    }

    @Test func fixedPointNumbersReadBackWithinHalfTheLastDigitAndWithoutTrailingZeros() throws {
        var generator = SeededGenerator(seed: 6)
        for _ in 0..<2_000 {
            let latitude = Double(generator.next() % 180_000_000_001) / 1e9 - 90
            let speed = Double(generator.next() % 100_000_000) / 1e4
            let location = LiveLocation(latitude: latitude, longitude: 0, lastUpdateAt: start, startedAt: start,
                                        expiresAt: start, isActive: true, speedMetersPerSecond: speed)
            let line = ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine
            let writtenLatitude = try #require(number(after: #""latitude":"#, in: line))
            let writtenSpeed = try #require(number(after: #""speed":"#, in: line))
            #expect(abs(Double(writtenLatitude)! - latitude) <= 0.5e-9 + 1e-12, "\(latitude) written as \(writtenLatitude)")
            #expect(abs(Double(writtenSpeed)! - speed) <= 0.5e-3 + 1e-12, "\(speed) written as \(writtenSpeed)")
            for written in [writtenLatitude, writtenSpeed] where written.contains(".") {
                #expect(!written.hasSuffix("0") && !written.hasSuffix("."), "\(written)")
            }
        }
    }

    @Test func aNumberThatRoundsToZeroIsWrittenWithoutASign() {
        let location = LiveLocation(latitude: -0.0000000001, longitude: 0, lastUpdateAt: start, startedAt: start,
                                    expiresAt: start, isActive: false)
        #expect(ShareEvent.updated(shareID: id, seq: 1, location: location).jsonLine.contains(#""latitude":0,"#))
    }

    private func number(after key: String, in line: String) -> Substring? {
        let parts = line.split(separator: key, maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return parts[1].prefix { $0 == "-" || $0 == "." || $0.isNumber }
    }
}
