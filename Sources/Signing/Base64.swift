/// Base64 with the standard alphabet and `=` padding (RFC 4648 §4), as Standard Webhooks uses it
/// for its keys (`whsec_…`) and signatures (`v1,…`).
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each byte's 6-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// `bytes` as base64 text, padded to a multiple of 4 characters.
    package static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let count = min(3, input.count - index)
            let b0 = UInt32(input[index])
            let b1 = count > 1 ? UInt32(input[index + 1]) : 0
            let b2 = count > 2 ? UInt32(input[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(count > 1 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(count > 2 ? alphabet[Int(group & 0x3F)] : UInt8(ascii: "="))
            index += count
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes that base64 `text` encodes. The text must be whole groups of 4 characters of the
    /// standard alphabet, with at most two `=`, only at the end; no whitespace, no URL-safe `-_`.
    /// Bits left over in a padded last group need not be zero (OpenSSL and Python accept them too,
    /// and the key must decode alike on both sides).
    /// - Throws: `Base64Error` naming the offset of the first offending character, never the text.
    package static func decode(_ text: some StringProtocol) throws(Base64Error) -> [UInt8] {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { throw .length(input.count) }
        let padding = input.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2 else { throw .misplacedPadding(offset: input.count - padding) }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var group: UInt32 = 0
        for (offset, byte) in input[..<(input.count - padding)].enumerated() {
            let value = values[Int(byte)]
            guard value != 0xFF else {
                if byte == UInt8(ascii: "=") { throw .misplacedPadding(offset: offset) }
                throw .invalidCharacter(offset: offset)
            }
            group = group << 6 | UInt32(value)
            if offset % 4 == 3 {
                output.append(contentsOf: [UInt8(group >> 16), UInt8(truncatingIfNeeded: group >> 8), UInt8(truncatingIfNeeded: group)])
                group = 0
            }
        }
        switch padding {
        case 1: output.append(contentsOf: [UInt8(truncatingIfNeeded: group >> 10), UInt8(truncatingIfNeeded: group >> 2)])
        case 2: output.append(UInt8(truncatingIfNeeded: group >> 4))
        default: break
        }
        return output
    }
}
