/// Where and how the Telegram destination sends: the bot, the chat and the Bot API server.
package struct TelegramConfiguration: Sendable, Equatable {
    package var token: BotToken
    package var chat: TelegramChat
    /// The Bot API server, without the `/bot<token>/` part: `https://api.telegram.org` or a
    /// self-hosted telegram-bot-api.
    package var apiURL: String
    /// PEM file of CA certificates to trust instead of the system store, for an https:// `apiURL`
    /// (a self-hosted telegram-bot-api behind a private CA).
    package var caFile: String?
    /// The longest one request may take, connecting included.
    package var timeout: Duration

    package static let defaultAPIURL = "https://api.telegram.org"

    /// - Throws: `TelegramError.invalidAPIURL` unless `apiURL` is `http://…` or `https://…`.
    package init(token: BotToken, chat: TelegramChat, apiURL: String = TelegramConfiguration.defaultAPIURL,
                 caFile: String? = nil, timeout: Duration = .seconds(10)) throws(TelegramError) {
        var base = apiURL
        while base.hasSuffix("/") { base.removeLast() }
        let lowered = base.lowercased()
        guard (lowered.hasPrefix("http://") || lowered.hasPrefix("https://")), base.count > 8,
              !base.contains(where: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "?" || $0 == "#" })
        else { throw .invalidAPIURL(apiURL) }
        self.token = token
        self.chat = chat
        self.apiURL = base
        self.caFile = caFile
        self.timeout = timeout
    }

    /// The URL of one Bot API method (it holds the token: never log it).
    func url(of method: String) -> String { "\(apiURL)/bot\(token.text)/\(method)" }
}
