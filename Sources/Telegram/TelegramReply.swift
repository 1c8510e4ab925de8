import Delivery
import HTTP
import JSONCoding
import LiveLocation

/// What one Bot API answer means for the share's message: the outcome classification, a pure
/// function of the call and the HTTP result.
package enum TelegramReply: Sendable, Equatable {
    /// `sendLocation` succeeded: the new message's id.
    case sent(messageID: Int64)
    /// The edit or stop took effect (or the message already showed exactly that: "message is not
    /// modified", which counts as done).
    case done
    /// The message is no longer live on Telegram's side (its live period ran out, or it was
    /// stopped): nothing more can change it, and nothing needs to. Not an error.
    case liveLocationOver(description: String)
    /// The Bot API refuses this request for good (400 other than the above): the message (or this
    /// one payload, for sendLocation) is lost. `description` is Telegram's, redacted.
    case refused(description: String)
    /// Flood control (429): send again after `retryAfter` (the answer's `parameters.retry_after`,
    /// else its Retry-After header).
    case floodWait(retryAfter: Duration?, description: String)
    /// The bot cannot send to this chat at all (401 token refused, 403 blocked or kicked, 404 wrong
    /// API URL or token, chat not found, group migrated): nothing can be delivered until the
    /// configuration changes.
    case unusable(reason: String)
    /// Not delivered this time (5xx, a transport error, a garbled answer): send again later.
    case retry(reason: String)

    /// Classifies the answer to `call`. `secrets` (the token) are redacted from every text kept.
    package static func classify(_ result: Result<HTTPResponse, HTTPFailure>, to call: TelegramCall,
                                 secrets: [String]) -> TelegramReply {
        let response: HTTPResponse
        switch result {
        case .failure(let failure):
            return .retry(reason: redacted(failure.description, hiding: secrets))
        case .success(let answer):
            response = answer
        }
        let answer = BotAPIAnswer(response.body)
        let description = redacted(answer?.description ?? "", hiding: secrets)
        let status = response.status
        func text(_ fallback: String) -> String { description.isEmpty ? fallback : description }

        if (200..<300).contains(status), let answer, answer.ok {
            guard case .sendLocation = call else { return .done }
            guard let messageID = answer.messageID else {
                return .retry(reason: "sendLocation answered ok without a message_id")
            }
            return .sent(messageID: messageID)
        }
        if status == 429 || answer?.errorCode == 429 {
            return .floodWait(retryAfter: answer?.retryAfter ?? response.retryAfter, description: text("HTTP 429 Too Many Requests"))
        }
        let lowered = description.lowercased()
        switch status {
        case 400:
            if let chat = answer?.migrateToChatID {
                return .unusable(reason: "the group became a supergroup: set the chat to \(chat) (\(text("HTTP 400")))")
            }
            if lowered.containsUTF8("message is not modified") { return .done }
            if lowered.containsUTF8("chat not found") { return .unusable(reason: text("HTTP 400 Bad Request: chat not found")) }
            if lowered.containsUTF8("message can't be edited") {
                if case .sendLocation = call { return .refused(description: description) }
                return .liveLocationOver(description: description)
            }
            return .refused(description: text("HTTP 400 Bad Request"))
        case 401:
            return .unusable(reason: "the Bot API refused the bot token (\(text("HTTP 401 Unauthorized")))")
        case 403:
            return .unusable(reason: "the bot may not post in this chat (\(text("HTTP 403 Forbidden")))")
        case 404:
            return .unusable(reason: "no Bot API method at this address: check the API URL and the token (\(text("HTTP 404 Not Found")))")
        case 405..<500:
            return .refused(description: text("HTTP \(status)"))
        case 200..<300:
            return .retry(reason: "HTTP \(status) without an ok answer" + (response.bodyTruncated ? " (answer too long)" : ""))
        default:
            return .retry(reason: text("HTTP \(status)"))
        }
    }
}

/// The fields of a Bot API response object that the destination reads.
struct BotAPIAnswer {
    var ok: Bool
    var description: String?
    var errorCode: Int?
    var retryAfter: Duration?
    var migrateToChatID: Int64?
    /// `result.message_id`, when the result is a Message.
    var messageID: Int64?

    /// Parses a response body; nil when it is not a JSON object with a boolean `ok`.
    init?(_ body: [UInt8]) {
        guard let value = try? JSONValue(parsing: body), case .object(let members) = value,
              case .bool(let ok)? = members["ok"] else { return nil }
        self.ok = ok
        if case .string(let text)? = members["description"] { description = text }
        if case .number(let text)? = members["error_code"] { errorCode = Int(text) }
        if case .object(let parameters)? = members["parameters"] {
            // Any number, however large (1e19 once crashed the daemon): clamped to a day.
            if case .number(let text)? = parameters["retry_after"], let seconds = Double(text) {
                retryAfter = Duration(clampingSeconds: seconds, maximum: .longestServerWait)
            }
            if case .number(let text)? = parameters["migrate_to_chat_id"] { migrateToChatID = Int64(text) }
        }
        if case .object(let result)? = members["result"], case .number(let text)? = result["message_id"] {
            messageID = Int64(text)
        }
    }
}
