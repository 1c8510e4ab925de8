import Foundation

/// One call as `scripts/telegram-bot-api.py` (the loopback Bot API contract server) saw it.
public struct BotAPICall: Decodable, Sendable, Equatable {
    /// The method as requested, e.g. "sendLocation".
    public var method: String
    /// Every parameter, as text (`"48.1405925"`, `"900"`, `"-100123"`).
    public var params: [String: String]
    /// The HTTP status answered (0 when the connection was closed without an answer).
    public var status: Int
    /// The error's description ("Bad Request: message can't be edited"), empty on success.
    public var description: String
    /// The message concerned, on success.
    public var messageID: Int?
    /// "auto" (the contract) or the script token used.
    public var token: String
    /// Arrival time, Unix seconds.
    public var received: Double

    enum CodingKeys: String, CodingKey {
        case method, params, status, description, token, received
        case messageID = "message_id"
    }

    /// A parameter as a number.
    public func number(_ name: String) -> Double? { params[name].flatMap(Double.init) }
}

/// The loopback Bot API contract server (see `scripts/telegram-bot-api.py` for the contract).
public final class BotAPIServer: Sendable {
    public let server: LoopbackScriptServer
    public let token: String
    /// Whether it serves HTTPS.
    public let https: Bool

    /// `http://127.0.0.1:PORT` (`https://` with `tls`): what `telegram.api_url` is set to.
    public var apiURL: String { "\(https ? "https" : "http")://127.0.0.1:\(server.port)" }

    /// Starts the server.
    /// - Parameters:
    ///   - chats: the chats the bot is in (nil: any).
    ///   - script: answers for the first calls ("500", "429:2", "close"), then the contract.
    ///   - livePeriodScale: how fast live periods pass (0.01: 900 s last 9 s).
    ///   - errorDescription: the description of the scripted error answers (any text, as a hostile
    ///     server's), instead of "Scripted error STATUS".
    ///   - tls: certificate and key PEM files: serve HTTPS.
    public static func start(token: String, records: URL, chats: [String]? = nil, script: [String] = [],
                             livePeriodScale: Double = 1, firstMessageID: Int = 1, errorDescription: String? = nil,
                             port: Int = 0, tls: (certificate: URL, key: URL)? = nil) async throws -> BotAPIServer {
        var arguments = ["--token", token, "--script", script.joined(separator: ","),
                         "--live-period-scale", String(livePeriodScale), "--first-message-id", String(firstMessageID)]
        if let chats { arguments += ["--chats", chats.joined(separator: ",")] }
        if let errorDescription { arguments += ["--error-description", errorDescription] }
        if let tls { arguments += ["--tls-cert", tls.certificate.path, "--tls-key", tls.key.path] }
        let server = try await LoopbackScriptServer.start(script: "telegram-bot-api.py", arguments: arguments,
                                                          records: records, port: port)
        return BotAPIServer(server: server, token: token, https: tls != nil)
    }

    private init(server: LoopbackScriptServer, token: String, https: Bool) {
        self.server = server
        self.token = token
        self.https = https
    }

    public func stop() { server.stop() }

    /// Every call so far, in arrival order.
    public func calls() -> [BotAPICall] { server.records(as: BotAPICall.self) }

    /// Waits (at most `timeout`) until `condition` holds for the calls; returns them either way.
    @discardableResult
    public func waitForCalls(timeout: Duration = .seconds(20), until condition: ([BotAPICall]) -> Bool) async -> [BotAPICall] {
        await server.waitForRecords(as: BotAPICall.self, timeout: timeout, until: condition)
    }
}
