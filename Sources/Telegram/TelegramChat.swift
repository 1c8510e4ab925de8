import JSONCoding

/// Where the live location goes: a chat id (a user's private chat: positive; a group or
/// supergroup: negative) or a public channel's `@username`.
package enum TelegramChat: Sendable, Equatable, CustomStringConvertible {
    case id(Int64)
    case username(String)

    /// Parses `123456789`, `-1001234567890` or `@channelname` (5–32 letters, digits or `_`).
    package init?(_ text: String) {
        if text.hasPrefix("@") {
            let name = text.dropFirst()
            guard (5...32).contains(name.utf8.count), name.utf8.allSatisfy({ byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            }) else { return nil }
            self = .username(text)
        } else {
            guard let id = Int64(text), id != 0 else { return nil }
            self = .id(id)
        }
    }

    /// The text form, as configured: `-100123…` or `@name`.
    package var description: String {
        switch self {
        case .id(let id): String(id)
        case .username(let name): name
        }
    }

    /// Groups, supergroups and channels: many viewers, a stricter flood limit.
    package var isGroup: Bool {
        switch self {
        case .id(let id): id < 0
        case .username: true
        }
    }

    /// The least time between two requests that change the chat's message: Telegram allows about
    /// one message a second in a private chat and 20 a minute in a group.
    package var minimumInterval: Duration { isGroup ? .seconds(3) : .seconds(1) }

    /// `chat_id` in a request body: a number for an id, a string for a username.
    var json: JSONValue {
        switch self {
        case .id(let id): .number(String(id))
        case .username(let name): .string(name)
        }
    }
}
