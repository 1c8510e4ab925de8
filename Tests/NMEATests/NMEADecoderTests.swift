import Foundation
import LiveLocation
import NMEA
import Testing
import TestSupport

@Suite struct SentenceDecoding {
    @Test func rmcGivesTimePositionSpeedAndCourse() {
        let (fixes, stats) = decode(sentence("GPRMC,123519.25,A,4807.038,N,01131.000,W,022.4,084.4,230394,003.1,W"))
        #expect(stats.sentences == 1)
        #expect(fixes.count == 1)
        let fix = fixes[0]
        #expect(fix.time == timestamp("1994-03-23T12:35:19.250Z"))
        #expect(isClose(fix.latitude, 48 + 7.038 / 60))
        #expect(isClose(fix.longitude, -(11 + 31.0 / 60)))
        #expect(isClose(fix.speedMetersPerSecond, 22.4 * 1852 / 3600))
        #expect(isClose(fix.courseDegreesTrue, 84.4))
        #expect(fix.mode == .twoDimensional)
    }

    @Test func ggaGivesAltitudesHdopAndSatellitesMergedWithRMCDate() {
        let text = sentence("GPGGA,123519,4807.038,S,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPRMC,123519,A,4807.038,S,01131.000,E,0.0,,021226,,")
        let (fixes, _) = decode(text)
        #expect(fixes.count == 1)
        let fix = fixes[0]
        #expect(fix.time == timestamp("2026-12-02T12:35:19.000Z"))
        #expect(isClose(fix.latitude, -(48 + 7.038 / 60)))
        #expect(isClose(fix.altitudeMSLMeters, 545.4))
        #expect(isClose(fix.altitudeHAEMeters, 545.4 + 46.9, within: 1e-9))
        #expect(isClose(fix.hdop, 0.9))
        #expect(fix.satellitesUsed == 8)
        #expect(fix.mode == .threeDimensional)
    }

    @Test func gnsGivesPosition() {
        let text = sentence("GPZDA,101010.00,02,12,2026,00,00")
            + sentence("GNGNS,101010.00,5230.000,N,01324.000,E,AAN,14,0.8,40.0,45.0,,,V")
        let (fixes, _) = decode(text)
        #expect(fixes.count == 1)
        #expect(isClose(fixes.first?.latitude, 52.5))
        #expect(isClose(fixes.first?.longitude, 13.4))
        #expect(isClose(fixes.first?.altitudeHAEMeters, 85.0))
        #expect(fixes.first?.satellitesUsed == 14)
    }

    @Test func gllGivesPosition() {
        let text = sentence("GPZDA,101010.00,02,12,2026,00,00")
            + sentence("GPGLL,5230.000,N,00010.500,W,101010.00,A,A")
        let (fixes, _) = decode(text)
        #expect(fixes.count == 1)
        #expect(isClose(fixes.first?.longitude, -(10.5 / 60)))
        #expect(fixes.first?.time == timestamp("2026-12-02T10:10:10.000Z"))
    }

    @Test func vtgGivesSpeedAndCourseInBothForms() {
        let modern = sentence("GPGLL,5230.000,N,00010.500,W,101010.00,A,A")
            + sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A")
            + sentence("GPZDA,101010.00,02,12,2026,00,00")
        let old = sentence("GPGLL,5230.000,N,00010.500,W,101010.00,A,A")
            + sentence("GPVTG,054.7,034.4,005.5,010.2")
            + sentence("GPZDA,101010.00,02,12,2026,00,00")
        for text in [modern, old] {
            let (fixes, _) = decode(text)
            #expect(isClose(fixes.first?.courseDegreesTrue, 54.7))
            #expect(isClose(fixes.first?.speedMetersPerSecond, 5.5 * 1852 / 3600))
        }
    }

    @Test func gsaModeDecidesTwoOrThreeDimensionsAsGpsdDoes() {
        // GGA alone says 2D with fewer than 4 satellites; a GSA saying 3D after it makes it 3D.
        let upgraded = sentence("GPGGA,101010.00,5230.000,N,01324.000,E,1,03,1.0,40.0,M,45.0,M,,")
            + sentence("GPGSA,A,3,04,05,09,,,,,,,,,,2.5,1.3,2.1")
            + sentence("GPZDA,101010.00,02,12,2026,00,00")
        #expect(decode(upgraded).fixes.first?.mode == .threeDimensional)
        let twoDimensional = sentence("GPGGA,101010.00,5230.000,N,01324.000,E,1,03,1.0,,M,,M,,")
            + sentence("GPGSA,A,2,04,05,09,,,,,,,,,,2.5,1.3,2.1")
            + sentence("GPZDA,101010.00,02,12,2026,00,00")
        #expect(decode(twoDimensional).fixes.first?.mode == .twoDimensional)
        // gpsd does not downgrade a 3D fix with an altitude when a GSA says 2D (nmea_parse()).
        let kept = sentence("GPGGA,101010.00,5230.000,N,01324.000,E,1,04,1.0,40.0,M,45.0,M,,")
            + sentence("GPGSA,A,2,04,05,09,12,,,,,,,,,2.5,1.3,2.1")
            + sentence("GPZDA,101010.00,02,12,2026,00,00")
        #expect(decode(kept).fixes.first?.mode == .threeDimensional)
    }

    @Test func zdaGivesTheDate() {
        let text = sentence("GPZDA,235959.50,31,12,2026,00,00")
            + sentence("GPGGA,235959.50,5230.000,N,01324.000,E,1,04,1.0,40.0,M,45.0,M,,")
        #expect(decode(text).fixes.map(\.time) == [timestamp("2026-12-31T23:59:59.500Z")])
    }

    @Test func gstGivesHorizontalAccuracy() {
        let text = sentence("GPZDA,101010.00,02,12,2026,00,00")
            + sentence("GPGST,101010.00,0.4,3.9,1.8,317.6,3.0,4.0,10.7")
            + sentence("GPGLL,5230.000,N,00010.500,W,101010.00,A,A")
        #expect(isClose(decode(text).fixes.first?.horizontalAccuracyMeters, 10.0))
    }

    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "IN", "EC"])
    func everyTalkerIsAccepted(talker: String) {
        let text = sentence("\(talker)RMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A")
        let (fixes, stats) = decode(text)
        #expect(fixes.count == 1)
        #expect(stats.sentences == 1)
    }

    @Test func proprietaryAndUnknownSentencesAreIgnoredWithoutError() {
        let text = sentence("PGRME,15.0,M,45.0,M,25.0,M")
            + sentence("PUBX,00,081350.00,4717.113210,N,00833.915187,E")
            + sentence("GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00")
            + sentence("SDDBT,21.8,f,6.6,M,3.6,F")
            + "!AIVDM,1,1,,B,177KQJ5000G?tO`K>RA1wUbN0TKH,0*5C\r\n"
            + epoch("101010")
        let (fixes, stats) = decode(text)
        #expect(fixes.count == 1)
        #expect(stats.ignored == 5)
        #expect(stats.malformed == 0 && stats.badChecksum == 0)
    }
}

@Suite struct Checksums {
    @Test func sentenceWithBadChecksumIsCountedAndSkipped() {
        let good = sentence("GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A")
        let bad = good.replacingOccurrences(of: "5230.000", with: "5231.000")
        let (fixes, stats) = decode(bad)
        #expect(fixes.isEmpty)
        #expect(stats.badChecksum == 1)
        #expect(stats.sentences == 0)
    }

    @Test func lowercaseHexChecksumIsVerified() {
        let good = sentence("GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A")
        #expect(decode(good.lowercasedChecksum).fixes.count == 1)
    }

    @Test func sentenceWithoutChecksumIsAcceptedLikeGpsd() {
        let (fixes, stats) = decode("$GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A\r\n")
        #expect(fixes.count == 1)
        #expect(stats.withoutChecksum == 1)
    }
}

@Suite struct Epochs {
    @Test func sentencesOfOneEpochMergeIntoOneFix() {
        let (fixes, stats) = decode(epoch("101010") + epoch("101011"))
        #expect(fixes.count == 2)
        #expect(stats.fixes == 2)
        let fix = fixes[0]
        #expect(fix.time == timestamp("2026-12-02T10:10:10.000Z"))
        #expect(isClose(fix.altitudeMSLMeters, 545.4))  // from GGA
        #expect(fix.mode == .threeDimensional)  // from GSA
        #expect(isClose(fix.courseDegreesTrue, 84.4))  // from RMC and VTG
        #expect(isClose(fix.speedMetersPerSecond, 22.4 * 1852 / 3600))
        #expect(fixes[1].time == timestamp("2026-12-02T10:10:11.000Z"))
    }

    @Test func noFixIsReportedBeforeADateIsKnown() {
        let text = sentence("GPGGA,101008,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGGA,101009,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + epoch("101010")
            + sentence("GPGGA,101011,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGGA,101012,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let times = decode(text).fixes.map(\.time)
        #expect(times == ["2026-12-02T10:10:10.000Z", "2026-12-02T10:10:11.000Z", "2026-12-02T10:10:12.000Z"].map(timestamp))
    }

    @Test func timeOfDayWrappingPastMidnightAdvancesTheDate() {
        let text = sentence("GPRMC,235959,A,5230.000,N,01324.000,E,0.0,0.0,311226,,,A")
            + sentence("GPGGA,000000,5230.000,N,01324.000,E,1,08,0.9,40.0,M,45.0,M,,")
            + sentence("GPGGA,000001,5230.000,N,01324.000,E,1,08,0.9,40.0,M,45.0,M,,")
            + sentence("GPRMC,000002,A,5230.000,N,01324.000,E,0.0,0.0,010127,,,A")
        let times = decode(text).fixes.map(\.time)
        #expect(times == ["2026-12-31T23:59:59.000Z", "2027-01-01T00:00:00.000Z",
                          "2027-01-01T00:00:01.000Z", "2027-01-01T00:00:02.000Z"].map(timestamp))
    }

    @Test(arguments: [
        "GPRMC,101011,V,5230.000,N,01324.000,E,0.0,0.0,021226,,,N",
        "GPGGA,101011,5230.000,N,01324.000,E,0,00,99.9,,M,,M,,",
        "GPGLL,5230.000,N,01324.000,E,101011,V,N",
        "GNGNS,101011,5230.000,N,01324.000,E,NNN,00,99.9,,,,,V",
    ])
    func sentenceFlaggedInvalidGivesNoFix(body: String) {
        let text = epoch("101010") + sentence(body) + epoch("101012")
        let times = decode(text).fixes.map(\.time)
        #expect(times == ["2026-12-02T10:10:10.000Z", "2026-12-02T10:10:12.000Z"].map(timestamp))
    }

    @Test func numberOfMoreThanEighteenDigitsIsUnknownNotAnOverflow() {
        // Found by fuzz-nmea: a 19-digit altitude overflowed Int64 and trapped.
        let text = sentence("GPGGA,101010,5230.000,N,01324.000,E,1,08,0.9,9999999999999999999,M,45.0,M,,")
            + sentence("GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A")
        let fixes = decode(text).fixes
        #expect(fixes.count == 1)
        #expect(fixes.first?.altitudeMSLMeters == nil)
        #expect(isClose(fixes.first?.latitude, 52.5))
    }

    @Test func gsaModeOneGivesNoFix() {
        let text = epoch("101010")
            + sentence("GPGGA,101011,5230.000,N,01324.000,E,1,04,1.0,40.0,M,45.0,M,,")
            + sentence("GPGSA,A,1,,,,,,,,,,,,,99.9,99.9,99.9")
            + epoch("101012")
        #expect(decode(text).fixes.count == 2)
    }

    @Test func differingPositionsForOneTimeAreEachReported() {
        // Some receivers (a B&G chartplotter in gpsd's corpus) give GLL and RMC a few metres apart.
        let text = sentence("GPZDA,101010,02,12,2026,00,00")
            + sentence("GPGLL,5230.000,N,01324.000,E,101010,A,A")
            + sentence("GPRMC,101010,A,5230.010,N,01324.000,E,0.0,0.0,021226,,,A")
        let fixes = decode(text).fixes
        #expect(fixes.count == 2)
        #expect(fixes.allSatisfy { $0.time == timestamp("2026-12-02T10:10:10.000Z") })
        #expect(isClose(fixes.last?.latitude, 52.5 + 0.01 / 60))
    }

    @Test func lastEpochCutOffByTheEndOfInputIsDropped() {
        let text = epoch("101010") + epoch("101011")
            + sentence("GPGGA,101012,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        #expect(decode(text).fixes.count == 2)
    }

    @Test func lastCompleteEpochIsFlushedAtFinish() {
        let text = epoch("101010") + epoch("101011")
        var decoder = NMEADecoder()
        var fixes: [Fix] = []
        Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
        #expect(fixes.count == 1)
        decoder.finish { fixes.append($0) }
        #expect(fixes.count == 2)
    }
}

@Suite struct DirtyInput {
    @Test func garbageTruncatedAndOverlongLinesAreCountedAndSkipped() {
        var bytes: [UInt8] = Array(epoch("101010").utf8)
        bytes += [0x00, 0xFF, 0xB5, 0x62, 0x01, 0x07, 0x0A]  // binary garbage (a UBX header)
        bytes += Array("$GPGGA,101011,4807.03".utf8) + [0x0A]  // truncated
        bytes += Array("$GPGGA,101011,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*7".utf8) + [0x0A]
        bytes += Array(sentence("GPTXT,01,01,02," + String(repeating: "X", count: 200)).utf8)  // overlong
        bytes += Array(String(repeating: "Z", count: 300).utf8) + [0x0A]
        bytes += Array(epoch("101011").utf8)
        let (fixes, stats) = decode(bytes: bytes)
        #expect(fixes.count == 2)
        #expect(stats.overlong == 2)
        #expect(stats.malformed == 2)  // the binary line and the GGA with a cut checksum
        #expect(stats.withoutChecksum == 1)  // the truncated GGA, accepted like gpsd but useless
        #expect(stats.badChecksum == 0)
        #expect(stats.lines == 13)
    }

    @Test func sentenceStartsAtTheLastDollarOfItsLine() {
        // gpsd resynchronises on `$`; triton400.log in its corpus has `$GPGGA,030130$GPGLL,…`.
        let text = "$GPGGA,101010" + sentence("GPGLL,5230.000,N,01324.000,E,101010,A,A")
            + "r" + sentence("GPZDA,101010,02,12,2026,00,00")
        let (fixes, stats) = decode(text)
        #expect(fixes.count == 1)
        #expect(stats.sentences == 2)
    }

    @Test func carriageReturnAloneEndsALine() {
        let text = (epoch("101010") + epoch("101011")).replacingOccurrences(of: "\r\n", with: "\r")
        #expect(decode(text).fixes.count == 2)
    }

    @Test func commentLinesAreSkipped() {
        let text = "# Name: test log\n# $GPRMC,in a comment\n" + epoch("101010")
        let (fixes, stats) = decode(text)
        #expect(fixes.count == 1)
        #expect(stats.comments == 2)
    }

    @Test func feedingByteByByteGivesTheSameFixesAsOneChunk() {
        var text = ""
        for second in 0..<20 { text += epoch("1010" + (second < 10 ? "0" : "") + "\(second)") }
        text += "$GPGGA,garbage*00\n" + String(repeating: "Q", count: 500) + "\n"
        let bytes = Array(text.utf8)
        let whole = decode(bytes: bytes)
        #expect(whole.fixes.count == 20)
        for chunkSize in [1, 2, 7, 64, 81, 4096] {
            let chunked = decode(bytes: bytes, chunkSize: chunkSize)
            #expect(chunked.fixes == whole.fixes, "chunk size \(chunkSize)")
            #expect(chunked.statistics == whole.statistics, "chunk size \(chunkSize)")
        }
    }

    @Test func statisticsDescriptionIsOneLine() {
        let stats = decode(epoch("101010")).statistics
        #expect(!stats.description.contains("\n"))
        #expect(stats.description.hasPrefix("lines 4, sentences 4, fixes 1, bad checksum 0"))
    }
}

extension String {
    /// The same sentence with its checksum digits in lowercase.
    var lowercasedChecksum: String {
        guard let star = lastIndex(of: "*") else { return self }
        return String(self[..<star]) + self[star...].lowercased()
    }
}

@Suite struct RobustInput {
    @Test func randomBytesNeverCrashAndEveryLineIsCounted() {
        var generator = SeededGenerator(seed: 0x5EED)
        var bytes: [UInt8] = []
        for _ in 0..<200_000 {
            // Mostly NMEA-ish bytes, some line ends and `$`, some binary.
            let roll = generator.next() % 100
            switch roll {
            case 0..<3: bytes.append(0x0A)
            case 3..<5: bytes.append(UInt8(ascii: "$"))
            case 5..<10: bytes.append(UInt8(truncatingIfNeeded: generator.next()))
            default: bytes.append(Array("GPRMC,0123456789.*ANSEW".utf8)[Int(generator.next() % 23)])
            }
        }
        bytes += Array(epoch("101010").utf8) + Array(epoch("101011").utf8)
        let whole = decode(bytes: bytes)
        #expect(whole.fixes.count >= 1)
        let s = whole.statistics
        #expect(s.lines == s.sentences + s.ignored + s.comments + s.badChecksum + s.malformed + s.overlong)
        #expect(decode(bytes: bytes, chunkSize: 3).statistics == s)
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "needs ../shared/gpsd-corpus"))
    func corpusLogsDecodeTheSameInAnyChunking() throws {
        let corpus = try #require(Paths.gpsdCorpus)
        for name in ["bundg_zeus_9.log", "telit-pls83-w.log", "triton400.log", "st-teseo-liv4f.log"] {
            let bytes = try [UInt8](Data(contentsOf: corpus.appendingPathComponent(name)))
            let whole = decode(bytes: bytes)
            #expect(!whole.fixes.isEmpty, "\(name)")
            for chunkSize in [1, 13, 100, 4097] {
                let chunked = decode(bytes: bytes, chunkSize: chunkSize)
                #expect(chunked.fixes == whole.fixes, "\(name), chunk size \(chunkSize)")
                #expect(chunked.statistics == whole.statistics, "\(name), chunk size \(chunkSize)")
            }
        }
    }
}
