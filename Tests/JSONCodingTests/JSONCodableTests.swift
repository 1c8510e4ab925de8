import Foundation
import JSONCoding
import Testing

private struct Sample: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var name: String
        var values: [Double]
    }

    enum Kind: String, Codable { case one, two }

    var count: Int
    var big: Int64
    var ratio: Double
    var flag: Bool
    var note: String?
    var inner: Inner?
    var kinds: [Kind]
    var table: [String: Int]
}

private let sample = Sample(
    count: -42, big: Int64.max, ratio: 52.123456789, flag: true, note: nil,
    inner: .init(name: "a/b \"q\"\n", values: [0, 1, -1.5, 1e-05, 1e20, 0.1 + 0.2]),
    kinds: [.two, .one], table: ["z": 1, "a": 2])

/// Foundation's encoder with the options the project used before it dropped Foundation.
private func foundationJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

@Suite struct JSONCodable {
    @Test func aValueSurvivesEncodingAndDecoding() throws {
        let decoded = try JSON.decode(Sample.self, from: try JSON.encode(sample))
        #expect(decoded == sample)
    }

    @Test func encodingGivesTheSameTextAsFoundationsSortedKeysEncoder() throws {
        #expect(String(decoding: try JSON.encode(sample), as: UTF8.self) == (try foundationJSON(sample)))
    }

    @Test func doublesPrintLikeFoundationOverManyMagnitudes() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var values: [Double] = [0, -0.0, 1, -1, 3, 1e15, 1e16, 123456789012345, 0.5, 1e-7, 5e-324, .greatestFiniteMagnitude]
        for _ in 0..<500 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let mantissa = Double(state >> 11) / Double(1 << 53)
            let exponent = Int(truncatingIfNeeded: state % 40) - 20
            values.append((mantissa - 0.5) * pow(10, Double(exponent)))
        }
        for value in values {
            #expect(String(decoding: try JSON.encode([value]), as: UTF8.self) == (try foundationJSON([value])), "\(value)")
        }
    }

    @Test func textFromFoundationsEncoderDecodesToTheSameValue() throws {
        let text = try foundationJSON(sample)
        #expect(try JSON.decode(Sample.self, from: Array(text.utf8)) == sample)
    }

    @Test func absentOptionalsAreLeftOutAndNullReadsAsAbsent() throws {
        var value = sample
        value.inner = nil
        let text = String(decoding: try JSON.encode(value), as: UTF8.self)
        #expect(!text.contains("inner") && !text.contains("note"))
        let withNull = text.replacingOccurrences(of: #""count""#, with: #""note":null,"count""#)
        #expect(try JSON.decode(Sample.self, from: Array(withNull.utf8)) == value)
    }

    @Test func unknownKeysAreIgnored() throws {
        struct Small: Codable, Equatable { var a: Int }
        #expect(try JSON.decode(Small.self, from: Array(#"{"a":1,"later":{"x":[1]}}"#.utf8)) == Small(a: 1))
    }

    @Test func aMissingKeyIsKeyNotFound() {
        struct Small: Codable { var a: Int }
        #expect {
            try JSON.decode(Small.self, from: Array("{}".utf8))
        } throws: { error in
            guard case DecodingError.keyNotFound(let key, _) = error else { return false }
            return key.stringValue == "a"
        }
    }

    @Test(arguments: [#"{"a":"1"}"#, #"{"a":1.5}"#, #"{"a":true}"#, #"{"a":null}"#, #"{"a":99999999999999999999}"#, "[1]"])
    func aValueOfTheWrongTypeIsADecodingError(_ text: String) {
        struct Small: Codable { var a: Int }
        #expect(throws: DecodingError.self) { try JSON.decode(Small.self, from: Array(text.utf8)) }
    }

    @Test func nonFiniteNumbersCannotBeEncoded() {
        #expect(throws: EncodingError.self) { try JSON.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSON.encode([Double.infinity]) }
    }
}
