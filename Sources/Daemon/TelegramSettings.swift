import Telegram

/// The daemon's `telegram.*` keys: each value checked as it is set (so a bad one names its file and
/// line), and the whole turned into the Telegram destination's configuration at validation.
enum TelegramSettings {
    /// Key, value form and meaning, for `livelocd --help` and the documentation.
    static let keys: [(key: String, value: String, meaning: String)] = [
        ("telegram.chat", "ID|@CHANNEL", "share the live location into this chat (default: no Telegram)"),
        ("telegram.token_file", "PATH", "the bot's token, readable by its owner only (default: the systemd credential 'telegram-token')"),
        ("telegram.api_url", "URL", "the Bot API server (default https://api.telegram.org)"),
    ]

    /// Checks one value. - Throws: `badValue` naming the key.
    static func check(_ key: String, _ value: String) throws(ConfigurationError) {
        func bad(_ expected: String) -> ConfigurationError { .badValue(key: key, value: value, expected: expected, at: nil) }
        switch key {
        case "telegram.chat":
            guard TelegramChat(value) != nil else { throw bad("a chat id (123456789, -1001234567890) or @channelname") }
        case "telegram.token_file":
            guard value.hasPrefix("/") else { throw bad("an absolute path") }
        case "telegram.api_url":
            guard value.hasPrefix("http://") || value.hasPrefix("https://") else { throw bad("an http:// or https:// URL") }
        default:
            throw .unknownKey(key: key, at: nil)
        }
    }

    /// The destination's configuration, or nil when no `telegram.chat` is set. Reads the token.
    /// - Throws: `missingKey` for telegram keys without a chat or a token, `badValue` for a token
    ///   file that cannot be read, is open to others, or holds no token.
    static func configuration(from values: [String: String], credentialsDirectory: String?) throws(ConfigurationError)
        -> TelegramConfiguration? {
        guard let chatText = values["telegram.chat"] else {
            if let stray = values.keys.sorted().first { throw .missingKey(key: "telegram.chat", because: stray) }
            return nil
        }
        guard let chat = TelegramChat(chatText) else {
            throw .badValue(key: "telegram.chat", value: chatText, expected: "a chat id or @channelname", at: nil)
        }
        let token: BotToken
        if let file = values["telegram.token_file"] {
            do { token = try BotToken.load(fromFile: file) } catch {
                throw .badValue(key: "telegram.token_file", value: file, expected: "a private file holding the bot token (\(error))", at: nil)
            }
        } else if let directory = credentialsDirectory {
            let file = directory + "/telegram-token"
            do { token = try BotToken.load(fromFile: file) } catch {
                throw .missingKey(key: "telegram.token_file", because: "telegram.chat: the systemd credential failed: \(error)")
            }
        } else {
            throw .missingKey(key: "telegram.token_file", because: "telegram.chat (or a systemd credential 'telegram-token')")
        }
        let apiURL = values["telegram.api_url"] ?? TelegramConfiguration.defaultAPIURL
        do { return try TelegramConfiguration(token: token, chat: chat, apiURL: apiURL) } catch {
            throw .badValue(key: "telegram.api_url", value: apiURL, expected: "an http:// or https:// URL", at: nil)
        }
    }
}
