/// JSON string escaping without Foundation: the one copy used by the JSON line writer and the
/// track formats.
package enum JSONText {
    /// Passes the JSON form of one UTF-8 byte of a string's contents to `put`: `"` and `\` escaped,
    /// control bytes as `\u00XX`, everything else as it is.
    @inline(__always)
    package static func escape(_ byte: UInt8, _ put: (UInt8) -> Void) {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"):
            put(UInt8(ascii: "\\")); put(byte)
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
    package static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 { escape(byte) { output.append($0) } }
        output.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
