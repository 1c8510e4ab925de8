/// Text as XML 1.0 character data or attribute values.
enum XMLText {
    /// Appends `text` with `&`, `<`, `>`, `"` and `'` escaped; characters XML 1.0 does not allow
    /// (controls other than tab, newline and carriage return) become U+FFFD.
    static func appendEscaped(_ text: String, to output: inout [UInt8]) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output.append(contentsOf: "&amp;".utf8)
            case "<": output.append(contentsOf: "&lt;".utf8)
            case ">": output.append(contentsOf: "&gt;".utf8)
            case "\"": output.append(contentsOf: "&quot;".utf8)
            case "'": output.append(contentsOf: "&apos;".utf8)
            case "\t", "\n", "\r": output.append(UInt8(scalar.value))
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    output.append(contentsOf: "\u{FFFD}".utf8)
                } else {
                    output.append(contentsOf: String(scalar).utf8)
                }
            }
        }
    }
}
