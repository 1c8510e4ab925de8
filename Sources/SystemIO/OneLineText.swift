/// `text` as it may appear inside a one-line message (an error line, a log line, a status field):
/// every control character (C0, DEL, C1) and the Unicode line and paragraph separators are written
/// as `\u{XX}`, so that text from a file, a request or a command line can never break the line or
/// move the terminal's cursor. Everything else is kept as it is.
package func oneLineText(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: breaksALine) else { return text }
    var result = ""
    result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
    for scalar in text.unicodeScalars {
        if breaksALine(scalar) {
            result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else {
            result.unicodeScalars.append(scalar)
        }
    }
    return result
}

private func breaksALine(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
    default: false
    }
}
