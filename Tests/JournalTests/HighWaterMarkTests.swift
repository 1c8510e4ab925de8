import Foundation
@testable import Journal
import LiveLocation
import Testing
import TestSupport

/// `journal.high-water`: what left the process, outside SQLite's files (issue 29).
@Suite struct HighWaterMarkTests {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    func mark(share: Bool, damage: String? = nil) -> HighWaterMark {
        var mark = HighWaterMark()
        mark.position = 240
        (mark.newestShare, mark.newestSeq) = (ShareID(rawValue: "trip-42"), 240)
        if share {
            let fix = Fix(time: start, latitude: 48.137, longitude: 11.575)
            mark.share = ShareSnapshot(id: ShareID(rawValue: "trip-42"), startedAt: start, expiresAt: start + .seconds(3600),
                                       lastFix: fix, lastSentFix: fix, seq: 240, updatesSent: 238)
        }
        mark.damage = damage
        return mark
    }

    @Test func aMarkReadsBackAsWritten() throws {
        for written in [mark(share: true), mark(share: false), mark(share: true, damage: "Page 9: btreeInitPage() returns error code 11\nmore")] {
            var expected = written
            expected.damage = expected.damage?.replacingOccurrences(of: "\n", with: " ")
            #expect(HighWaterMark(decoding: written.encoded) == expected)
        }
    }

    @Test func aTornOrForeignFileIsNoMark() {
        let bytes = mark(share: true).encoded
        #expect(HighWaterMark(decoding: Array(bytes.prefix(bytes.count / 2))) == nil)
        var flipped = bytes
        flipped[60] ^= 0x01
        #expect(HighWaterMark(decoding: flipped) == nil)
        #expect(HighWaterMark(decoding: Array("not a mark\n".utf8)) == nil)
        #expect(HighWaterMark(decoding: []) == nil)
    }

    /// A shorter mark is padded over the whole of a longer one: nothing of a share's state (its
    /// last position) stays in the file once the share has ended.
    @Test func aShorterMarkLeavesNothingOfALongerOneBehind() throws {
        let directory = try Paths.temporaryDirectory("high-water").path
        let file = try HighWaterMarkFile(directory: directory)
        var long = mark(share: true, damage: String(repeating: "x", count: 380))
        long.newestShare = ShareID(rawValue: String(repeating: "s", count: 700))
        try file.write(long)
        let longLength = try Data(contentsOf: URL(fileURLWithPath: file.path)).count
        try file.write(mark(share: false))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file.path))
        #expect(bytes.count == longLength && longLength > HighWaterMarkFile.slotBytes)
        #expect(!String(decoding: bytes, as: UTF8.self).contains("share "), "the ended share's record is gone")
        #expect(file.read() == mark(share: false))
    }
}
