import JSONCoding
import LiveLocation

/// What the Telegram destination keeps in the journal with its acknowledgements: which message
/// shows which share in which chat, so that a restarted daemon edits the same message.
package struct TelegramMessageState: Sendable, Equatable {
    package var shareID: ShareID
    /// The chat as configured (`TelegramChat.description`): a changed `telegram.chat` starts a new message.
    package var chat: String
    package var messageID: Int64
    /// The message's live period, seconds from its sending (`sendLocation`'s, or the last
    /// `editMessageLiveLocation` that extended it); nil when not known (kept by an older livelocd):
    /// the message is then not extended.
    package var livePeriodSeconds: Int?

    package init(shareID: ShareID, chat: String, messageID: Int64, livePeriodSeconds: Int? = nil) {
        self.shareID = shareID
        self.chat = chat
        self.messageID = messageID
        self.livePeriodSeconds = livePeriodSeconds
    }

    /// `{"chat":"…","livePeriod":N,"messageId":N,"shareId":"…","v":1}` (`livePeriod` when known).
    package var bytes: [UInt8] {
        var members: [String: JSONValue] = [
            "v": .number("1"), "shareId": .string(shareID.rawValue), "chat": .string(chat),
            "messageId": .number(String(messageID)),
        ]
        if let livePeriodSeconds { members["livePeriod"] = .number(String(livePeriodSeconds)) }
        return JSONValue.object(members).bytes
    }

    /// Reads `bytes`; nil for anything else (another version, damage): a new message is then sent.
    package init?(bytes: [UInt8]?) {
        guard let bytes, let value = try? JSONValue(parsing: bytes), case .object(let members) = value,
              members["v"] == .number("1"),
              case .string(let share)? = members["shareId"], case .string(let chat)? = members["chat"],
              case .number(let number)? = members["messageId"], let messageID = Int64(number)
        else { return nil }
        var period: Int?
        if case .number(let text)? = members["livePeriod"] { period = Int(text) }
        self.init(shareID: ShareID(rawValue: share), chat: chat, messageID: messageID, livePeriodSeconds: period)
    }
}
