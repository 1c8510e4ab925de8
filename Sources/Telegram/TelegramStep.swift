import LiveLocation

/// What the Telegram destination does with one event: a pure decision from the event and what is
/// known of the share's message.
package enum TelegramStep: Sendable, Equatable {
    /// Send this request.
    case call(TelegramCall)
    /// Nothing to send; the event is delivered as it is.
    case nothing(Reason)

    package enum Reason: Sendable, Equatable {
        /// The message already shows this position.
        case unchangedPosition
        /// `ended` of a share that has no message in the chat.
        case noMessage
        /// The message is no longer live (expired or stopped on Telegram's side) or was lost
        /// (deleted): nothing can change it any more.
        case messageClosed
    }

    /// The step for `event`.
    ///
    /// - Parameters:
    ///   - message: the message showing this share in the configured chat, if one was sent, with its
    ///     live period when known: an update whose share ends later than that period covers (an
    ///     extension) edits the message with the longer period.
    ///   - shown: the position that message shows, when known (in memory since the last start).
    ///   - closed: the message can no longer change (see `Reason.messageClosed`).
    package static func next(for event: ShareEvent, message: TelegramMessageState?, shown: TelegramPosition?,
                             closed: Bool) -> TelegramStep {
        switch event {
        case .updated(_, _, let location):
            let position = TelegramPosition(location)
            guard let message else {
                // The share's first update (or the first this chat gets): a new message, live for
                // the share's duration; a share that is already over gets a plain location.
                let period = location.isActive
                    ? TelegramCall.livePeriodSeconds(forShareOf: location.expiresAt - location.startedAt) : nil
                return .call(.sendLocation(position, livePeriodSeconds: period))
            }
            if closed { return .nothing(.messageClosed) }
            // An extended share: the message stays live as much longer (its period only grows).
            if location.isActive, let current = message.livePeriodSeconds {
                let wanted = TelegramCall.livePeriodSeconds(forShareOf: location.expiresAt - location.startedAt)
                if wanted > current { return .call(.editLiveLocation(messageID: message.messageID, position, livePeriodSeconds: wanted)) }
            }
            if shown == position { return .nothing(.unchangedPosition) }
            return .call(.editLiveLocation(messageID: message.messageID, position))
        case .ended:
            guard let message else { return .nothing(.noMessage) }
            if closed { return .nothing(.messageClosed) }
            return .call(.stopLiveLocation(messageID: message.messageID))
        }
    }
}
