import SystemIO

/// Why the Telegram destination cannot be set up. Never shows the token.
package enum TelegramError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token file cannot be read, or others may read it (the token must stay private).
    case tokenFile(SecretFileError)
    /// The file does not hold a bot token (`123456:ABC-…`).
    case invalidToken(path: String)
    /// The chat is neither a chat id nor an `@channel` name.
    case invalidChat(String)
    /// The Bot API base URL is not `http://…` or `https://…`.
    case invalidAPIURL(String)

    package var description: String {
        switch self {
        case .tokenFile(let error):
            "telegram token: \(error)"
        case .invalidToken(let path):
            "telegram token file \(path) holds no bot token (expected one line like 123456:ABC-DEF…, as @BotFather gives it)"
        case .invalidChat(let text):
            "invalid telegram chat '\(text)': expected a chat id (123456789, -1001234567890) or @channelname"
        case .invalidAPIURL(let text):
            "invalid telegram API URL '\(text)': expected http://… or https://…"
        }
    }
}
