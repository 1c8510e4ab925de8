/// Why the Telegram destination cannot be set up. Never shows the token.
package enum TelegramError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token file cannot be read.
    case unreadableTokenFile(path: String, reason: String)
    /// The token file may be read by other users: the token must stay private.
    case tokenFileTooOpen(path: String, mode: UInt32)
    /// The file does not hold a bot token (`123456:ABC-…`).
    case invalidToken(path: String)
    /// The chat is neither a chat id nor an `@channel` name.
    case invalidChat(String)
    /// The Bot API base URL is not `http://…` or `https://…`.
    case invalidAPIURL(String)

    package var description: String {
        switch self {
        case .unreadableTokenFile(let path, let reason):
            "telegram token file \(path): \(reason)"
        case .tokenFileTooOpen(let path, let mode):
            "telegram token file \(path) is readable by group or others (mode 0\(String(mode, radix: 8))); "
                + "make it private: chmod 600 \(path)"
        case .invalidToken(let path):
            "telegram token file \(path) holds no bot token (expected one line like 123456:ABC-DEF…, as @BotFather gives it)"
        case .invalidChat(let text):
            "invalid telegram chat '\(text)': expected a chat id (123456789, -1001234567890) or @channelname"
        case .invalidAPIURL(let text):
            "invalid telegram API URL '\(text)': expected http://… or https://…"
        }
    }
}
