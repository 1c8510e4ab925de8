import LiveLocation
@testable import NMEA
import Testing
import TestSupport
import Foundation

/// Frames `text` fed in reads of `chunk` bytes; returns each sentence's text (from `$` to before
/// `*`) and whether it had a checksum, and the framer's counts.
private func frame(_ text: String, chunk: Int? = nil) -> (sentences: [(String, Bool)], statistics: NMEAStatistics) {
    var framer = NMEAFramer()
    var sentences: [(String, Bool)] = []
    let bytes = Array(text.utf8)
    let size = max(1, chunk ?? bytes.count)
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        bytes[start..<end].withUnsafeBytes { raw in
            framer.decode(raw) { sentences.append((String(decoding: $0.bytes, as: UTF8.self), $0.hasChecksum)) }
        }
        start = end
    }
    framer.decodeLast { sentences.append((String(decoding: $0.bytes, as: UTF8.self), $0.hasChecksum)) }
    return (sentences, framer.statistics)
}

@Suite struct Framing {
    @Test func framerHandsOnCheckedSentencesWithoutTheirChecksumField() {
        let text = sentence("GPGGA,101010,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGSV,3,1,11,03,03,111,00")
        let (sentences, statistics) = frame(text)
        #expect(sentences.map(\.0) == ["$GPGGA,101010,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
                                       "$GPGSV,3,1,11,03,03,111,00"])
        #expect(sentences.allSatisfy { $0.1 })
        #expect(statistics.lines == 2)
    }

    @Test(arguments: [1, 2, 3, 7, 8, 9, 64])
    func aSentenceSplitAcrossReadsIsFramedWhole(chunk: Int) {
        let text = "garbage$" + sentence("GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A") + "\n\r"
            + "$GPGLL,5230.000,N,00010.500,W,101010.00,A,A"  // the last line has no line end
        let whole = frame(text)
        let chunked = frame(text, chunk: chunk)
        #expect(chunked.sentences.map(\.0) == whole.sentences.map(\.0))
        #expect(chunked.statistics == whole.statistics)
        #expect(whole.sentences.map(\.1) == [true, false])
        #expect(whole.sentences.first?.0 == "$GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A")
    }

    @Test func badLinesAreCountedAndNotHandedOn() {
        let good = sentence("GPZDA,101010.00,02,12,2026,00,00")
        let badSum = good.replacingOccurrences(of: "2026", with: "2027")
        let text = badSum
            + "# a comment\r\n"
            + "$GPZDA,10\u{01}1010.00,02,12,2026,00,00*00\r\n"  // a control byte
            + "$GP*ZDA,101010.00,02*12\r\n"                    // a '*' in the body
            + "$" + String(repeating: "A", count: 200) + "\r\n"
            + "no sentence here\r\n"
        let (sentences, statistics) = frame(text)
        #expect(sentences.isEmpty)
        #expect(statistics.badChecksum == 1)
        #expect(statistics.comments == 1)
        #expect(statistics.malformed == 3)
        #expect(statistics.overlong == 1)
        #expect(statistics.lines == 6)
    }

    @Test func theFramerKeepsAtMostOneSentenceOfAnUnfinishedLine() {
        // A read of a megabyte without a line end: the framer does not grow with it.
        var framer = NMEAFramer()
        let noise = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        noise.withUnsafeBytes { framer.decode($0) { _ in Issue.record("no sentence expected") } }
        var handed: [String] = []
        Array(("\r\n" + sentence("GPZDA,101010.00,02,12,2026,00,00")).utf8).withUnsafeBytes {
            framer.decode($0) { handed.append(String(decoding: $0.bytes, as: UTF8.self)) }
        }
        #expect(handed == ["$GPZDA,101010.00,02,12,2026,00,00"])
        #expect(framer.statistics.overlong == 1)
    }
}

@Suite struct SentenceDecodingHalf {
    /// The sentence decoder, fed the framer's sentences, gives what `NMEADecoder` gives.
    @Test func framerAndSentenceDecoderTogetherAreTheDecoder() {
        let text = epoch("101010") + epoch("101011") + epoch("101012")
        var framer = NMEAFramer()
        var sentences = NMEASentenceDecoder()
        var fixes: [Fix] = []
        Array(text.utf8).withUnsafeBytes { framer.decode($0) { sentences.decode($0) { fixes.append($0) } } }
        framer.decodeLast { sentences.decode($0) { fixes.append($0) } }
        sentences.finish { fixes.append($0) }
        #expect(fixes == decode(text).fixes)
        #expect(sentences.sentences == 12)
    }

    /// Handlers say what they filled; they know nothing of epochs.
    @Test func handlersReportWhatTheyFilledAsAMask() {
        func decodeOne(_ body: String) -> (FieldMask, SentenceReport) {
            var report = SentenceReport()
            var mask: FieldMask = []
            let text = sentence(body)
            var framer = NMEAFramer()
            Array(text.utf8).withUnsafeBytes {
                framer.decode($0) { framed in
                    let base = framed.start
                    var comma = 1
                    while base[comma] != UInt8(ascii: ",") { comma += 1 }
                    let type = SentenceType(address: base + 1, count: comma - 1)!
                    var fields = FieldCursor(base: base, start: comma + 1, end: framed.count)
                    mask = type.decode(&fields, into: &report)
                }
            }
            return (mask, report)
        }
        let (rmc, rmcReport) = decodeOne("GPRMC,101010,A,5230.000,N,01324.000,E,5.0,,021226,,,A")
        #expect(rmc == [.time, .date, .position, .fix, .mode, .speed])
        #expect(rmcReport.modeRule == .keepThreeDimensional)
        let (gga, _) = decodeOne("GPGGA,101010,5230.000,N,01324.000,E,1,08,0.9,40.0,M,,M,,")
        #expect(gga == [.time, .position, .fix, .mode, .satellites, .hdop, .altitude])
        let (invalid, invalidReport) = decodeOne("GPRMC,101010,V,,,,,,,021226,,,N")
        #expect(invalid == [.time, .date, .noFix, .mode])
        #expect(invalidReport.modeRule == .noFix)
        // gpsd takes a VTG only with a true course and a speed in knots.
        let (vtg, _) = decodeOne("GNVTG,,T,,M,0.007,N,0.014,K,A")
        #expect(vtg == [])
        let (pgrmz, pgrmzReport) = decodeOne("PGRMZ,48,f,3")
        #expect(pgrmz == [.altitude, .mode])
        #expect(abs(pgrmzReport.altitudeMSL - 14.6304) < 1e-9)
    }
}

@Suite struct WhatGpsdAdds {
    @Test func heightAboveTheEllipsoidComesFromGpsdsGeoidWhenGGAOmitsTheSeparation() {
        // gpsd reports geoidSep 43.515 at 52.849508 N, 5.312205 E (bundg_zeus_9.log.chk).
        #expect(abs(GeoidSeparation.meters(latitude: 52.849508333, longitude: 5.312205) - 43.515) < 0.0005)
        let text = sentence("GPGGA,101010,5250.9705,N,00518.7323,E,1,12,0.60,-5,M,,M,,")
            + sentence("GPRMC,101010,A,5250.9705,N,00518.7323,E,5.7,238.1,200818,1.4,E,A")
        let fix = decode(text).fixes.first
        #expect(isClose(fix?.altitudeHAEMeters, -5 + 43.515, within: 0.001))
    }

    @Test func speedOfAReceiverThatReportsNoneIsTheDistanceOverTheTime() {
        // rst39.log: GGAs 0.1 s apart; gpsd reports 4.698 and 4.628 m/s for the second and third.
        let text = sentence("GPRMC,204132.00,A,4205.733476,N,08802.041110,W,9.415,21.404,190214,,,D")
            + sentence("GPGGA,204132.10,4205.733715,N,08802.040978,W,2,08,1.0,221.921,M,,,3,0138")
            + sentence("GPGGA,204132.20,4205.733946,N,08802.040837,W,2,08,1.0,221.912,M,,,3,0138")
            + sentence("GPGGA,204132.30,4205.734170,N,08802.040688,W,2,08,1.0,221.903,M,,,3,0138")
        let fixes = decode(text).fixes
        #expect(fixes.count == 4)
        #expect(isClose(fixes[0].speedMetersPerSecond, 9.415 * 1852 / 3600))  // the RMC's own
        #expect(isClose(fixes[2].speedMetersPerSecond, 4.698, within: 0.0005))
        #expect(isClose(fixes[3].speedMetersPerSecond, 4.628, within: 0.0005))
    }

    @Test func garminsAlternateSecondsGetTheirAltitudeFromPGRMZ() {
        let text = sentence("GPRMC,225308,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E")
            + sentence("GPGGA,225308,4527.458,S,16709.165,E,1,05,2.1,14.7,M,1.1,M,,")
            + sentence("GPGLL,4527.458,S,16709.165,E,225309,A")
            + sentence("PGRMZ,48,f,3")
            + sentence("GPRMC,225310,A,4527.458,S,16709.165,E,000.0,094.5,060601,024.1,E")
        let fixes = decode(text).fixes
        #expect(fixes.count == 2)
        #expect(isClose(fixes[1].altitudeMSLMeters, 14.6304))
        #expect(fixes[1].mode == .threeDimensional)
    }
}

@Suite struct LiveFlush {
    /// A live source that pauses after an epoch gets it at once; the next epoch does not repeat it.
    @Test func aCompleteEpochIsReportedWhenTheReceiverPauses() {
        var decoder = NMEADecoder()
        var fixes: [Fix] = []
        func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } } }
        feed(epoch("101010") + epoch("101011"))
        #expect(fixes.count == 1)  // the second epoch is still open
        decoder.flushCompletedEpoch { fixes.append($0) }
        #expect(fixes.count == 2)
        feed(epoch("101012"))
        decoder.finish { fixes.append($0) }
        #expect(fixes.map(\.time) == ["2026-12-02T10:10:10.000Z", "2026-12-02T10:10:11.000Z",
                                      "2026-12-02T10:10:12.000Z"].map(timestamp))
    }

    @Test func anEpochCutShortIsNotReportedEarly() {
        var decoder = NMEADecoder()
        var fixes: [Fix] = []
        func feed(_ text: String) { Array(text.utf8).withUnsafeBytes { decoder.feed($0) { fixes.append($0) } } }
        // The receiver's epochs end with VTG; a pause after the GGA of the next one is mid-epoch.
        feed(epoch("101010") + epoch("101011") + sentence("GPGGA,101012,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
        let before = fixes.count
        decoder.flushCompletedEpoch { fixes.append($0) }
        #expect(fixes.count == before)
    }
}

@Suite struct LiveFlushAnywhere {
    /// However a live source's bytes pause (here after every 48 bytes), the fixes are the replay's.
    @Test(arguments: [1, 13, 48, 200])
    func pausesAnywhereGiveTheSameFixes(chunk: Int) throws {
        let text = try String(contentsOf: Paths.fixture("drive-multignss-1hz.nmea"), encoding: .utf8)
        let bytes = Array(text.utf8.prefix(60_000))
        var expected: [Fix] = []
        var whole = NMEADecoder()
        bytes.withUnsafeBytes { whole.feed($0) { expected.append($0) } }
        whole.finish { expected.append($0) }
        var live = NMEADecoder()
        var fixes: [Fix] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + chunk)
            bytes[start..<end].withUnsafeBytes { live.feed($0) { fixes.append($0) } }
            live.flushCompletedEpoch { fixes.append($0) }
            start = end
        }
        live.finish { fixes.append($0) }
        #expect(fixes.map(\.time) == expected.map(\.time))
        #expect(fixes == expected)
    }
}

@Suite struct EveryReadBoundary {
    /// A read may end anywhere: every cut of six epochs gives the same fixes as none.
    @Test(.disabled(if: Sanitizer.isThread, "one thread, nothing shared: nothing for ThreadSanitizer to find"))
    func everyCutGivesTheSameFixes() throws {
        let text = try String(contentsOf: Paths.fixture("drive-multignss-1hz.nmea"), encoding: .utf8)
        let bytes = Array(text.utf8.prefix(5494))
        var expected: [Fix] = []
        var whole = NMEADecoder()
        bytes.withUnsafeBytes { whole.feed($0) { expected.append($0) } }
        whole.finish { expected.append($0) }
        var failures: [Int] = []
        for cut in 0...bytes.count {
            var decoder = NMEADecoder()
            var fixes: [Fix] = []
            bytes[..<cut].withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
            bytes[cut...].withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
            decoder.finish { fixes.append($0) }
            if fixes != expected { failures.append(cut) }
        }
        #expect(failures.isEmpty, "cuts that change the fixes: \(failures.prefix(20))")
    }
}
