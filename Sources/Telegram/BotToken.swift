import SystemIO

/// A Telegram bot's token (`<bot id>:<secret>`, as @BotFather gives it). It is part of every Bot
/// API URL, so it is kept apart: its description is redacted, and `text` is used only to build a
/// request and to redact messages.
package struct BotToken: Sendable, Equatable, CustomStringConvertible {
    /// The token itself. Never log it: pass messages through `redacted(_:hiding:)`.
    package let text: String

    /// Accepts `digits:rest` where rest is letters, digits, `_` and `-` (what may stand in a URL
    /// path unescaped); nil otherwise.
    package init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 20,
              parts[0].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              !parts[1].isEmpty, parts[1].utf8.count <= 200,
              parts[1].utf8.allSatisfy({ byte in
                  (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                      || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
              })
        else { return nil }
        self.text = text
    }

    package var description: String { "<bot token>" }

    /// Reads the token from a file: one line (surrounding white space and a final newline ignored).
    /// The file must be readable by its owner only (`readSecretFile`: mode 0600 or 0400, as
    /// systemd's credentials are).
    /// - Throws: `TelegramError` naming the file (never its content).
    package static func load(fromFile path: String) throws(TelegramError) -> BotToken {
        let bytes: [UInt8]
        do { bytes = try readSecretFile(path, limit: 4096) } catch { throw .tokenFile(error) }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == " " || $0 == "\t" })
        guard trimmed.count == 1, let token = BotToken(String(trimmed[0])) else { throw .invalidToken(path: path) }
        return token
    }
}
