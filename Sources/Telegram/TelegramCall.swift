import JSONCoding

/// One Bot API request of a live location's life: send it, move it, stop it.
package enum TelegramCall: Sendable, Equatable {
    /// `sendLocation`: a new message. `livePeriodSeconds` nil sends a plain (not live) location.
    case sendLocation(TelegramPosition, livePeriodSeconds: Int?)
    /// `editMessageLiveLocation`: the message shows `position` now; with `livePeriodSeconds`, it stays
    /// live that long from its sending (Bot API 7.3: a longer period extends a live location).
    case editLiveLocation(messageID: Int64, TelegramPosition, livePeriodSeconds: Int? = nil)
    /// `stopMessageLiveLocation`: the message stops being live; viewers see its last position.
    case stopLiveLocation(messageID: Int64)

    /// The Bot API method's name.
    package var method: String {
        switch self {
        case .sendLocation: "sendLocation"
        case .editLiveLocation: "editMessageLiveLocation"
        case .stopLiveLocation: "stopMessageLiveLocation"
        }
    }

    /// The request's JSON body (parameters as the Bot API documents them).
    package func body(chat: TelegramChat) -> [UInt8] {
        var members: [String: JSONValue] = ["chat_id": chat.json]
        switch self {
        case .sendLocation(let position, let livePeriod):
            add(position, to: &members)
            if let livePeriod { members["live_period"] = .number(String(livePeriod)) }
        case .editLiveLocation(let messageID, let position, let livePeriod):
            members["message_id"] = .number(String(messageID))
            add(position, to: &members)
            if let livePeriod { members["live_period"] = .number(String(livePeriod)) }
        case .stopLiveLocation(let messageID):
            members["message_id"] = .number(String(messageID))
        }
        return JSONValue.object(members).bytes
    }

    private func add(_ position: TelegramPosition, to members: inout [String: JSONValue]) {
        members["latitude"] = .number(jsonNumber(position.latitude))
        members["longitude"] = .number(jsonNumber(position.longitude))
        if let accuracy = position.horizontalAccuracyMeters { members["horizontal_accuracy"] = .number(jsonNumber(accuracy)) }
        if let heading = position.heading { members["heading"] = .number(String(heading)) }
    }

    /// The live period for a share of `duration` (from its start to its end): the Bot API's periods
    /// that match the share durations (15 min, 1 h, 8 h), the shortest that covers it; a share
    /// extended past 8 h (at most 16 h), its length in whole seconds, rounded up. A share's period
    /// grows only when it is extended: any extension of a 15 min, 1 h or 8 h share asks for more.
    package static func livePeriodSeconds(forShareOf duration: Duration) -> Int {
        let seconds = Int(clamping: duration.components.seconds + (duration.components.attoseconds > 0 ? 1 : 0))
        if seconds <= 900 { return 900 }
        if seconds <= 3600 { return 3600 }
        return max(28800, seconds)
    }
}

/// A finite Double as JSON number text (Swift's shortest round-trip form: `48.1405925`, `1e-05`).
private func jsonNumber(_ value: Double) -> String {
    let text = String(value)
    return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
}
