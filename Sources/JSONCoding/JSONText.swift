/// JSON string escaping without Foundation: the one copy used by the JSON line writer, the JSON
/// tree (`JSONValue`, `JSON.encode`) and the track formats.
package enum JSONText {
    /// Passes the JSON form of one UTF-8 byte of a string's contents to `put`: `"` and `\` escaped,
    /// control bytes as `\u00XX` (with `shortForms`, `\b \f \n \r \t` for those five, as
    /// Foundation's JSONEncoder writes them), everything else as it is.
    @inline(__always)
    package static func escape(_ byte: UInt8, shortForms: Bool = false, _ put: (UInt8) -> Void) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            put(UInt8(ascii: "\\")); put(byte)
        case 0..<0x20 where shortForms && shortEscape(byte) != nil:
            put(UInt8(ascii: "\\")); put(shortEscape(byte)!)
        case 0..<0x20:
            put(UInt8(ascii: "\\")); put(UInt8(ascii: "u")); put(UInt8(ascii: "0")); put(UInt8(ascii: "0"))
            put(hexDigit(byte >> 4)); put(hexDigit(byte & 0xF))
        default:
            put(byte)
        }
    }

    /// The most bytes one input byte becomes.
    package static let maximumEscapedLength = 6

    /// Appends `text` as a JSON string, quotes included.
    package static func appendString(_ text: String, shortForms: Bool = false, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 { escape(byte, shortForms: shortForms) { output.append($0) } }
        output.append(UInt8(ascii: "\""))
    }

    /// The letter of JSON's short escape for `byte` (`\b \t \n \f \r`), if it has one.
    private static func shortEscape(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x08: UInt8(ascii: "b")
        case 0x09: UInt8(ascii: "t")
        case 0x0A: UInt8(ascii: "n")
        case 0x0C: UInt8(ascii: "f")
        case 0x0D: UInt8(ascii: "r")
        default: nil
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
