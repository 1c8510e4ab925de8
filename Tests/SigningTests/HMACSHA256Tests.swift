import Signing
import Testing

/// HMAC-SHA256 against RFC 4231 §4.2–4.8 (test cases 1 to 7).
@Suite struct HMACSHA256Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        var number: Int
        var key: [UInt8]
        var data: [UInt8]
        var mac: String
        var testDescription: String { "RFC 4231 test case \(number)" }
    }

    static let cases: [Case] = [
        Case(number: 1, key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
             mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        // A key shorter than the code.
        Case(number: 2, key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
             mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        // Data and key made of bytes of value 0xdd and 0xaa.
        Case(number: 3, key: [UInt8](repeating: 0xaa, count: 20), data: [UInt8](repeating: 0xdd, count: 50),
             mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(number: 4, key: bytes(hex: "0102030405060708090a0b0c0d0e0f10111213141516171819"),
             data: [UInt8](repeating: 0xcd, count: 50),
             mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        // Truncated to 128 bits: only the first 16 bytes are published.
        Case(number: 5, key: [UInt8](repeating: 0x0c, count: 20), data: Array("Test With Truncation".utf8),
             mac: "a3b6167473100ee06e0c796c2955552b"),
        // A 131-byte key: longer than a block, so it is hashed first.
        Case(number: 6, key: [UInt8](repeating: 0xaa, count: 131),
             data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(number: 7, key: [UInt8](repeating: 0xaa, count: 131),
             data: Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                 + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
             mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: cases)
    func theRFC4231TestCasesGiveTheirPublishedCodes(_ testCase: Case) {
        let code = HMACSHA256.authenticationCode(key: testCase.key, message: testCase.data)
        #expect(code.count == HMACSHA256.codeByteCount)
        #expect(hex(code).hasPrefix(testCase.mac))
        #expect(testCase.mac.count == 64 || testCase.number == 5)
    }

    @Test func aMessageFedInPiecesGivesTheSameCodeAsAtOnce() {
        let testCase = Self.cases[6]
        var mac = HMACSHA256(key: testCase.key)
        for piece in stride(from: 0, to: testCase.data.count, by: 7) {
            mac.update(testCase.data[piece..<min(piece + 7, testCase.data.count)])
        }
        #expect(hex(mac.finalize()) == testCase.mac)
    }

    @Test func aKeyOfExactlyOneBlockIsUsedAsItIsAndOneByteMoreIsHashed() {
        // Block-size keys sit on the edge between padding and hashing; values from Python's hmac.
        let block = [UInt8](repeating: 0x61, count: 64), longer = [UInt8](repeating: 0x61, count: 65)
        #expect(hex(HMACSHA256.authenticationCode(key: block, message: Array("m".utf8)))
            == "cd11329ff173063b748ca80406312ca140e95e65d03ba7fa546fdaab1aac03f1")
        #expect(hex(HMACSHA256.authenticationCode(key: longer, message: Array("m".utf8)))
            == "5d5f27064dc43c62a01463f9866c581d865b2ddcbb928b616b43a5f0e71f5de5")
    }

    @Test func oneKeyedValueCopiedPerMessageSignsMessageAfterMessageAsIfEachWereAlone() {
        // RFC 4231 cases 6 and 7 share their key: one value keyed once signs 6, 7, then 6 again.
        let keyed = HMACSHA256(key: Self.cases[5].key)
        #expect(Self.cases[5].key == Self.cases[6].key)
        for testCase in [Self.cases[5], Self.cases[6], Self.cases[5]] {
            var mac = keyed
            mac.update(testCase.data)
            #expect(hex(mac.finalize()) == testCase.mac, "\(testCase)")
        }
    }
}
