import Signing

/// Base64 with the URL and file name safe alphabet and no padding (RFC 4648 §5): share link ids
/// and keys, which sit in a URL's path and fragment.
package enum Base64URL {
    /// `bytes` as unpadded base64url text.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text = Base64.encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// The bytes unpadded (or padded) base64url `text` encodes; nil for anything else (standard
    /// `+/`, whitespace, a length no encoding has).
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        guard standard.count % 4 != 1 else { return nil }
        while standard.count % 4 != 0 { standard.append("=") }
        return try? Base64.decode(standard)
    }
}
