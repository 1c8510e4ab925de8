/// Why a text is not base64 (RFC 4648 §4). Never shows the text: it may be a key.
package enum Base64Error: Error, CustomStringConvertible, Equatable, Sendable {
    /// The text's length (bytes) is not a multiple of 4.
    case length(Int)
    /// A character outside the alphabet at this byte offset.
    case invalidCharacter(offset: Int)
    /// A `=` before the end, or more than two of them, starting at this byte offset.
    case misplacedPadding(offset: Int)

    package var description: String {
        switch self {
        case .length(let count): "not base64: \(count) characters, not a multiple of 4"
        case .invalidCharacter(let offset): "not base64: a character outside the alphabet at offset \(offset)"
        case .misplacedPadding(let offset): "not base64: padding '=' out of place at offset \(offset)"
        }
    }
}
