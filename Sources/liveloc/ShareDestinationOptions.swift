import ArgumentParsing
import Delivery
import Journal
import MQTT
import SystemIO
import Telegram
import Traccar

/// `liveloc share`'s Telegram, Traccar and MQTT (`MQTTOptions`) options, checked when parsed (a bad value is a usage
/// error naming the option; an unusable token file exits 2 naming the file), and the destinations
/// they configure.
struct ShareDestinationOptions {
    /// The options this file adds to `liveloc share`.
    static let options: [String: Arguments.Kind] = [
        "--telegram-chat": .value, "--telegram-token-file": .value, "--telegram-api-url": .value,
        "--traccar": .value, "--traccar-id": .value, "--leftovers": .value, "--drain-timeout": .value,
    ].merging(MQTTOptions.options) { first, _ in first }

    /// For `liveloc share --help`.
    static let help = """
          --telegram-chat ID  share the live location into this Telegram chat (a chat id, or @channel):
                              one live location message, moved at most once a second (3 s in a group)
          --telegram-token-file FILE   the bot's token (required with --telegram-chat; only its owner may
                              read the file: mode 600 or 400)
          --telegram-api-url URL       the Bot API server (default https://api.telegram.org)
          --traccar URL       send every position to this Traccar server's OsmAnd port (http://HOST:5055)
          --traccar-id ID     the device's identifier in Traccar (required with --traccar)
        \(MQTTOptions.help)
          --leftovers P       events an earlier run with this state directory queued for a destination
                              not given now: keep (default: they wait for a run to that receiver, and
                              each queue is named at start), discard them, or redirect them to the
                              destination of the same kind given now (only if it is the same party)
        """

    var telegram: TelegramConfiguration?
    var traccar: TraccarConfiguration?
    var mqtt: MQTTConfiguration?
    /// `--state-directory`, when given: where the journal is kept.
    var stateDirectory: String?
    /// `--leftovers`: what becomes of events an earlier run queued for a destination not given now.
    var leftovers = LeftoverPolicy.keep
    /// `--drain-timeout`: how long the destinations get, after the share ended, to take what is queued.
    var drainTimeout = Duration.seconds(30)

    /// Reads the options from `arguments`.
    /// - Throws: `UsageError` for a missing or bad value, `CommandFailure` (exit 2) for a token file
    ///   that cannot be used.
    init(_ arguments: Arguments) throws {
        stateDirectory = arguments.value("--state-directory")
        if let timeout = try arguments.value("--drain-timeout", as: Duration.textSyntax, Duration.init(durationText:)) {
            drainTimeout = min(timeout, .seconds(86_400))
        }
        leftovers = try arguments.value("--leftovers", as: "keep, discard or redirect", LeftoverPolicy.init(rawValue:)) ?? .keep
        mqtt = try MQTTOptions.configuration(arguments)
        if let chatText = arguments.value("--telegram-chat") {
            guard let chat = TelegramChat(chatText) else {
                throw UsageError("invalid value '\(chatText)' for --telegram-chat: expected a chat id or @channelname")
            }
            guard let file = arguments.value("--telegram-token-file") else {
                throw UsageError("--telegram-chat needs --telegram-token-file FILE (tokens never go on the command line)")
            }
            let token: BotToken
            do { token = try BotToken.load(fromFile: file) } catch { throw CommandFailure("\(error)", exitStatus: 2) }
            let url = arguments.value("--telegram-api-url") ?? TelegramConfiguration.defaultAPIURL
            do { telegram = try TelegramConfiguration(token: token, chat: chat, apiURL: url) } catch {
                throw UsageError("invalid value '\(url)' for --telegram-api-url: expected an http:// or https:// URL")
            }
        } else if let stray = ["--telegram-token-file", "--telegram-api-url"].first(where: arguments.has) {
            throw UsageError("\(stray) needs --telegram-chat ID")
        }
        switch (arguments.value("--traccar"), arguments.value("--traccar-id")) {
        case (nil, nil): break
        case (nil, _): throw UsageError("--traccar-id needs --traccar URL")
        case (_, nil): throw UsageError("--traccar needs --traccar-id ID (the device's identifier in Traccar)")
        case (let url?, let id?):
            do { traccar = try TraccarConfiguration(url: url, deviceID: id) } catch {
                throw UsageError("\(error)")
            }
        }
    }

    /// The destinations configured (libcurl is loaded when there is one).
    /// - Throws: `CommandFailure` when libcurl cannot be loaded.
    func destinations(log: Logger) throws -> [any Destination] {
        var result: [any Destination] = []
        do {
            if let telegram { result.append(try TelegramDestination(configuration: telegram, log: log)) }
            if let traccar { result.append(try TraccarDestination(configuration: traccar, log: log)) }
            if let mqtt { result.append(try MQTTDestination(configuration: mqtt, log: log)) }
        } catch {
            throw CommandFailure("\(error)")
        }
        return result
    }
}
