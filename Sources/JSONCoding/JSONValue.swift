/// A JSON document as a tree: what `JSON.encode` builds from an `Encodable` value and
/// `JSON.decode` reads a `Decodable` one from.
///
/// Numbers keep their text, so that an `Int64` goes through unchanged and a `Double` is read by the
/// standard library's own parser.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's text, valid JSON number syntax (`-12`, `52.5`, `1e-05`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What the value is, for a message about a value of the wrong type: `the number 15`,
    /// `a string`, `an object`.
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number(let text): "the number \(text)"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a JSON text could not be read, as one line.
package enum JSONSyntaxError: Error, Equatable, CustomStringConvertible {
    /// A byte that cannot start or continue what was expected there.
    case unexpectedByte(UInt8, offset: Int)
    /// The text ended inside a value.
    case unexpectedEnd
    /// Something other than white space after the value.
    case trailingBytes(offset: Int)
    /// A string that is not valid UTF-8, or a `\u` escape that is not a valid code point.
    case invalidString(offset: Int)
    /// Arrays and objects nested deeper than `JSONParser.maximumDepth`.
    case tooDeep(offset: Int)

    package var description: String {
        switch self {
        case .unexpectedByte(let byte, let offset):
            let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
            return "unexpected \(shown) at offset \(offset)"
        case .unexpectedEnd: return "unexpected end of JSON text"
        case .trailingBytes(let offset): return "unexpected data after the JSON value at offset \(offset)"
        case .invalidString(let offset): return "invalid string (bad UTF-8 or \\u escape) at offset \(offset)"
        case .tooDeep(let offset): return "nested deeper than \(JSONParser.maximumDepth) levels at offset \(offset)"
        }
    }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259): a value with optional white space around it.
    package init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        self = try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            var parser = JSONParser(buffer)
            return try parser.document()
        }
    }

    /// The text of this value: no white space, object keys sorted, `/` not escaped.
    package var bytes: [UInt8] {
        var output: [UInt8] = []
        write(into: &output)
        return output
    }

    /// Appends the text of this value to `output`.
    package func write(into output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): Self.writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                element.write(into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &output)
                output.append(UInt8(ascii: ":"))
                members[key]!.write(into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// As Foundation's JSONEncoder writes strings: the short escapes where JSON has them.
    private static func writeString(_ text: String, into output: inout [UInt8]) {
        JSONText.appendString(text, shortForms: true, to: &output)
    }
}

/// A recursive-descent reader of one JSON text, over bytes in place.
struct JSONParser {
    /// Deep enough for any document of this project; shallow enough that hostile input cannot
    /// exhaust the stack.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        let value = try self.value()
        skipWhiteSpace()
        guard offset == bytes.count else { throw .trailingBytes(offset: offset) }
        return value
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        skipWhiteSpace()
        guard offset < bytes.count else { throw .unexpectedEnd }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        case let byte: throw .unexpectedByte(byte, offset: offset)
        }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        var members: [String: JSONValue] = [:]
        skipWhiteSpace()
        if try peek() == UInt8(ascii: "}") {
            offset += 1
        } else {
            while true {
                skipWhiteSpace()
                guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(bytes[offset], offset: offset) }
                let key = try string()
                skipWhiteSpace()
                try expect(UInt8(ascii: ":"))
                members[key] = try value()
                skipWhiteSpace()
                if take(UInt8(ascii: "}")) { break }
                try expect(UInt8(ascii: ","))
            }
        }
        depth -= 1
        return .object(members)
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        var elements: [JSONValue] = []
        skipWhiteSpace()
        if try peek() == UInt8(ascii: "]") {
            offset += 1
        } else {
            while true {
                elements.append(try value())
                skipWhiteSpace()
                if take(UInt8(ascii: "]")) { break }
                try expect(UInt8(ascii: ","))
            }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw .tooDeep(offset: offset) }
        offset += 1
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        let start = offset
        offset += 1
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        func flushRun(upTo end: Int, into scalars: inout String.UnicodeScalarView) throws(JSONSyntaxError) {
            guard end > runStart else { return }
            guard let run = String(validating: UnsafeBufferPointer(rebasing: bytes[runStart..<end]), as: UTF8.self) else {
                throw .invalidString(offset: runStart)
            }
            scalars.append(contentsOf: run.unicodeScalars)
        }
        while true {
            guard offset < bytes.count else { throw .unexpectedEnd }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                try flushRun(upTo: offset, into: &scalars)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRun(upTo: offset, into: &scalars)
                offset += 1
                scalars.append(try escape(stringStart: start))
                runStart = offset
            case ..<0x20:
                throw .unexpectedByte(byte, offset: offset)
            default:
                offset += 1
            }
        }
    }

    /// The escape after a backslash; a `\u` high surrogate takes its low one with it.
    private mutating func escape(stringStart: Int) throws(JSONSyntaxError) -> Unicode.Scalar {
        let byte = try peek()
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let escapeOffset = offset - 2
            let unit = try hexQuad()
            if (0xD800..<0xDC00).contains(unit) {
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")) else { throw .invalidString(offset: escapeOffset) }
                let low = try hexQuad()
                guard (0xDC00..<0xE000).contains(low) else { throw .invalidString(offset: escapeOffset) }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw .invalidString(offset: escapeOffset) }
            return scalar
        default:
            throw .unexpectedByte(byte, offset: offset - 1)
        }
    }

    private mutating func hexQuad() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try peek()
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .unexpectedByte(byte, offset: offset)
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as its text.
    private mutating func number() throws(JSONSyntaxError) -> String {
        let start = offset
        _ = take(UInt8(ascii: "-"))
        if try peek() == UInt8(ascii: "0") {
            offset += 1
        } else {
            try digits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            try digits()
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            try digits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
    }

    /// One or more decimal digits.
    private mutating func digits() throws(JSONSyntaxError) {
        let start = offset
        while offset < bytes.count, bytes[offset] &- UInt8(ascii: "0") < 10 { offset += 1 }
        guard offset > start else {
            if offset < bytes.count { throw .unexpectedByte(bytes[offset], offset: offset) }
            throw .unexpectedEnd
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for byte in expected {
            guard offset < bytes.count else { throw .unexpectedEnd }
            guard bytes[offset] == byte else { throw .unexpectedByte(bytes[offset], offset: offset) }
            offset += 1
        }
    }

    private mutating func skipWhiteSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONSyntaxError) -> UInt8 {
        guard offset < bytes.count else { throw .unexpectedEnd }
        return bytes[offset]
    }

    /// Consumes `byte` when it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        guard offset < bytes.count, bytes[offset] == byte else { return false }
        offset += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws(JSONSyntaxError) {
        let next = try peek()
        guard next == byte else { throw .unexpectedByte(next, offset: offset) }
        offset += 1
    }
}
