import Delivery
import Settings
import SystemIO

extension TelegramDestination {
    /// Telegram's settings (`telegram.*`; `liveloc share --telegram…`) and how it is built.
    package static let kind = DestinationKind(
        name: "telegram", title: "Telegram",
        about: "The share as one live location message in a Telegram chat, moved at most once a second (3 s in a group), by a bot whose token is a file readable by its owner only (or the systemd credential 'telegram-token').",
        settings: [
            DestinationSetting(SettingDescription("telegram.chat", "ID|@CHANNEL", example: "123456789",
                                                  "share the live location into this chat (default: no Telegram)",
                                                  shareOption: "--telegram-chat")) { value throws(SettingError) in
                guard TelegramChat(value) != nil else {
                    throw .badValue(key: "telegram.chat", value: value, expected: "a chat id (123456789, -1001234567890) or @channelname")
                }
            },
            .absolutePath(SettingDescription("telegram.token_file", "PATH", example: "/etc/livelocd/telegram-token",
                                             "the bot's token, readable by its owner only (default: the systemd credential 'telegram-token')",
                                             shareOption: "--telegram-token-file", namesSecretFile: true)),
            DestinationSetting(SettingDescription("telegram.api_url", "URL", default: TelegramConfiguration.defaultAPIURL,
                                                  "the Bot API server", shareOption: "--telegram-api-url")) { value throws(SettingError) in
                guard value.hasPrefix("http://") || value.hasPrefix("https://") else {
                    throw .badValue(key: "telegram.api_url", value: value, expected: "an http:// or https:// URL")
                }
            },
            .readableFile(SettingDescription("telegram.ca_file", "PATH", example: "/etc/livelocd/telegram-ca.pem",
                                             "PEM file of CA certificates to trust instead of the system store, for an https:// api_url "
                                                 + "(a self-hosted Bot API server behind a private CA; default: the system store)",
                                             shareOption: "--telegram-ca-file")),
        ],
        configure: { values, environment throws(SettingError) in
            guard let configuration = try configuration(from: values, credentialsDirectory: environment.credentialsDirectory) else { return nil }
            return ConfiguredDestination(kind: "telegram") { context in try TelegramDestination(configuration: configuration, log: context.log) }
        })

    /// The destination's configuration, or nil when no `telegram.chat` is set. Reads the token.
    /// - Throws: `missingKey` for a chat without a token, `badValue` for a token
    ///   file that cannot be read, is open to others, or holds no token.
    private static func configuration(from values: [String: String], credentialsDirectory: String?) throws(SettingError)
        -> TelegramConfiguration? {
        guard let chatText = values["telegram.chat"] else { return nil }
        guard let chat = TelegramChat(chatText) else {
            throw .badValue(key: "telegram.chat", value: chatText, expected: "a chat id or @channelname")
        }
        let token: BotToken
        if let file = values["telegram.token_file"] {
            do { token = try BotToken.load(fromFile: file) } catch {
                throw .badValue(key: "telegram.token_file", value: file, expected: "a private file holding the bot token (\(error))")
            }
        } else if let file = Credentials.path("telegram-token", in: credentialsDirectory) {
            do { token = try BotToken.load(fromFile: file) } catch {
                throw .missingKey("telegram.token_file", because: "telegram.chat", hint: "(the systemd credential failed: \(error))")
            }
        } else {
            throw .missingKey("telegram.token_file", because: "telegram.chat",
                              hint: "(or a systemd credential 'telegram-token'; tokens never go on the command line)")
        }
        let apiURL = values["telegram.api_url"] ?? TelegramConfiguration.defaultAPIURL
        do { return try TelegramConfiguration(token: token, chat: chat, apiURL: apiURL, caFile: values["telegram.ca_file"]) } catch {
            throw .badValue(key: "telegram.api_url", value: apiURL, expected: "an http:// or https:// URL")
        }
    }
}
