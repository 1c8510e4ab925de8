import JSONCoding
import Testing

private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
    try JSONValue(parsing: Array(text.utf8))
}

private func text(_ value: JSONValue) -> String { String(decoding: value.bytes, as: UTF8.self) }

@Suite struct JSONParsing {
    @Test func everyKindOfValueIsRead() throws {
        let value = try parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": ""} "#)
        #expect(value == .object([
            "a": .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]),
            "b": .object(["c": .string("d")]),
            "e": .string(""),
        ]))
    }

    @Test func escapesAreDecodedIncludingSurrogatePairs() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#) == .string("\"\\/\u{08}\u{0C}\n\r\té😀"))
    }

    @Test func rawUTF8InStringsIsKept() throws {
        #expect(try parse(#""Zürich 東京""#) == .string("Zürich 東京"))
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1",
        "tru", "nul", "\"open", "[1 2]", "{} {}", "'x'", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"",
        "\"\\ud800\\u0041\"", "\"\\udc00\"", "NaN", "Infinity",
    ])
    func malformedTextIsASyntaxError(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test func controlCharacterInsideAStringIsRejected() {
        #expect(throws: JSONSyntaxError.unexpectedByte(0x0A, offset: 2)) { try parse("\"a\nb\"") }
    }

    @Test func invalidUTF8InsideAStringIsRejected() {
        #expect(throws: JSONSyntaxError.invalidString(offset: 1)) {
            try JSONValue(parsing: [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")])
        }
    }

    @Test func nestingIsLimitedSoHostileInputCannotExhaustTheStack() throws {
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try parse(deepest)
        let tooDeep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONSyntaxError.tooDeep(offset: 64)) { try parse(tooDeep) }
    }

    @Test func errorsAreOneLineAndSayWhere() {
        #expect("\(JSONSyntaxError.unexpectedByte(UInt8(ascii: "x"), offset: 7))" == "unexpected 'x' at offset 7")
        #expect("\(JSONSyntaxError.unexpectedByte(0x0A, offset: 2))" == "unexpected byte 0xa at offset 2")
    }
}

@Suite struct JSONWriting {
    @Test func objectKeysAreSortedAndNothingIsSpaced() {
        let value = JSONValue.object(["b": .array([.number("1"), .null]), "a": .bool(true), "C": .string("x")])
        #expect(text(value) == #"{"C":"x","a":true,"b":[1,null]}"#)
    }

    @Test func stringsEscapeQuotesBackslashesAndControlCharactersButNotSlashes() {
        #expect(text(.string("a\"b\\c/d\n\r\t\u{01}\u{1F}é")) == #""a\"b\\c/d\n\r\t\u0001\u001fé""#)
    }

    @Test func writtenTextParsesBackToTheSameValue() throws {
        let value = JSONValue.object([
            "list": .array([.number("-0.5"), .string("\u{00}\u{7F}😀"), .object([:]), .array([])]),
            "flag": .bool(false), "none": .null,
        ])
        #expect(try JSONValue(parsing: value.bytes) == value)
    }
}
