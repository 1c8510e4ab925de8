/// `text` with every occurrence of each secret replaced by `<redacted>`, ignoring ASCII case
/// (libcurl lower-cases some parts of a URL in its messages): the one function every message that
/// might hold a secret (a URL with the Bot API's token, libcurl's error text, a server's
/// description) goes through before it is logged, returned as a reason or shown in status.
/// Empty secrets are ignored.
package func redacted(_ text: String, hiding secrets: [String]) -> String {
    var bytes = Array(text.utf8)
    var changed = false
    for secret in secrets where !secret.isEmpty {
        let needle = secret.utf8.map(asciiLowercase)
        guard needle.count <= bytes.count else { continue }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + needle.count <= bytes.count,
               zip(bytes[index..<(index + needle.count)], needle).allSatisfy({ asciiLowercase($0) == $1 }) {
                output.append(contentsOf: redactionMark.utf8)
                index += needle.count
                changed = true
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        bytes = output
    }
    return changed ? String(decoding: bytes, as: UTF8.self) : text
}

/// What a secret looks like once redacted.
package let redactionMark = "<redacted>"

private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
}
