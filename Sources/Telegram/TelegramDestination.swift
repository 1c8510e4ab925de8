import Delivery
import HTTP
import LiveLocation
import Locking
import SystemIO

/// Shares the live location into one Telegram chat through the Bot API, as the Telegram apps do:
/// the share's first update sends a live location (`sendLocation` with `live_period`), later
/// updates move it (`editMessageLiveLocation`), the final update moves it a last time and `ended`
/// stops it (`stopMessageLiveLocation`). An extended share's next update edits the message with a
/// longer `live_period` (Bot API 7.3), kept with the message id.
///
/// The message's id is kept in the journal with the acknowledgement of `sendLocation`, so a
/// restarted daemon goes on editing the same message. Requests are paced to Telegram's flood
/// limits (one a second in a private chat, one every 3 s in a group or channel): an event that
/// comes too early is answered `.notYet`, and the `latest` backlog then sends only the newest
/// position. The token never appears in a log line or a reason.
package final class TelegramDestination: Destination {
    package let name = "telegram"
    /// `telegram bot ID chat CHAT`: the token's public bot id, never its secret part; the Bot API
    /// server too when it is not Telegram's own (a self-hosted telegram-bot-api). Made once: the
    /// runner names its queue with it for every event.
    package let identity: String
    /// One request at a time; stale positions are skipped after an outage or while pacing.
    package let queue = QueuePolicy(maxInFlight: 1, backlog: .latest)

    private let configuration: TelegramConfiguration
    private let client: HTTPClient
    private let log: Logger
    /// The time the pacing is measured on: the continuous clock, a test's own.
    private let now: @Sendable () -> ContinuousClock.Instant
    private let memory = Locked(Memory())

    /// What is known since the last start (the journal keeps only the message id).
    private struct Memory {
        /// When the last answer (or failure) came back: the next request waits the chat's interval from it.
        var lastAnswerAt: ContinuousClock.Instant?
        /// The position the share's message shows.
        var shown: (shareID: ShareID, messageID: Int64, position: TelegramPosition)?
        /// The share whose message can no longer change (no longer live, or lost).
        var closed: ShareID?
    }

    /// Prepares the HTTP client (libcurl is loaded now for an https:// `api_url`); nothing is sent
    /// before the first `send`.
    ///
    /// - Parameters:
    ///   - log: one line per notable happening (message sent, live location over, message lost,
    ///     bot unusable); never the token.
    ///   - now: the time the requests are paced on (a test's clock; the continuous clock by default).
    /// - Throws: `HTTPClientError` when libcurl cannot be loaded (https:// only).
    package init(configuration: TelegramConfiguration, log: Logger,
                 now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) throws {
        self.configuration = configuration
        self.log = log
        self.now = now
        let bot = configuration.token.text.prefix { $0 != ":" }
        let server = configuration.apiURL == TelegramConfiguration.defaultAPIURL ? "" : " via \(configuration.apiURL)"
        identity = "telegram bot \(bot) chat \(configuration.chat)\(server)"
        client = try HTTPClient(caFile: configuration.caFile, timeout: configuration.timeout, label: "telegram",
                                preparing: configuration.apiURL)
    }

    /// The HTTP client's thread: the runner runs there (no thread hop per event).
    package var executor: (any TaskExecutor)? { client.executor }

    package func send(_ queued: QueuedEvent) -> DeliveryReceipt {
        let event = queued.event
        let chat = configuration.chat
        let message = TelegramMessageState(bytes: queued.destinationState)
            .flatMap { $0.shareID == event.shareID && $0.chat == chat.description ? $0 : nil }
        let decision = memory.withLock { memory -> Decision in
            let shown = memory.shown.flatMap { $0.shareID == event.shareID && $0.messageID == message?.messageID ? $0.position : nil }
            let closed = message != nil && memory.closed == event.shareID
            switch TelegramStep.next(for: event, message: message, shown: shown, closed: closed) {
            case .nothing:
                return .answer(.delivered())
            case .call(let call):
                if let last = memory.lastAnswerAt {
                    let ready = last + chat.minimumInterval
                    let current = now()
                    if current < ready { return .answer(.notYet(after: current.duration(to: ready))) }
                }
                return .request(call)
            }
        }
        let call: TelegramCall
        switch decision {
        case .answer(let outcome): return DeliveryReceipt(outcome)
        case .request(let request): call = request
        }
        let receipt = DeliveryReceipt()
        receipt.onAbandon { [client] in client.abort() }
        let request = HTTPRequest(method: .post, url: configuration.url(of: call.method),
                                  body: .json(call.body(chat: chat)), secrets: [configuration.token.text])
        client.perform(request) { [self] result in
            let reply = TelegramReply.classify(result, to: call, secrets: [configuration.token.text])
            receipt.fulfil(apply(reply, of: call, for: event))
        }
        return receipt
    }

    private enum Decision {
        case answer(DeliveryOutcome)
        case request(TelegramCall)
    }

    /// Records what the answer means for the share's message and turns it into the runner's outcome.
    private func apply(_ reply: TelegramReply, of call: TelegramCall, for event: ShareEvent) -> DeliveryOutcome {
        let share = event.shareID
        let chat = configuration.chat.description
        let (outcome, note) = memory.withLock { memory -> (DeliveryOutcome, (LogLevel, String)?) in
            memory.lastAnswerAt = now()
            switch (reply, call) {
            case (.sent(let messageID), .sendLocation(let position, let period)):
                memory.shown = (share, messageID, position)
                if memory.closed == share { memory.closed = nil }
                return (.delivered(state: TelegramMessageState(shareID: share, chat: chat, messageID: messageID,
                                                               livePeriodSeconds: period).bytes),
                        (.notice, "share \(share): " + (period.map { "live location (\($0) s)" } ?? "final location (the share was over)")
                            + " sent to chat \(chat) as message \(messageID)"))
            case (.sent, .editLiveLocation(let messageID, let position, let period?)), (.done, .editLiveLocation(let messageID, let position, let period?)):
                memory.shown = (share, messageID, position)
                return (.delivered(state: TelegramMessageState(shareID: share, chat: chat, messageID: messageID,
                                                               livePeriodSeconds: period).bytes),
                        (.notice, "share \(share): live location extended to \(period) s in chat \(chat)"))
            case (.sent, _), (.done, _):
                switch call {
                case .editLiveLocation(let messageID, let position, _): memory.shown = (share, messageID, position)
                case .stopLiveLocation: memory.closed = share
                case .sendLocation: break
                }
                return (.delivered(), nil)
            case (.liveLocationOver(let description), _):
                memory.closed = share
                return (.delivered(), (.notice, "share \(share): the live location is over on Telegram's side (\(description)); "
                        + "the share's remaining events need no request"))
            case (.refused(let description), .sendLocation):
                return (.refused(reason: "Telegram refused sendLocation: \(description)"), nil)
            case (.refused(let description), .editLiveLocation(let messageID, _, let period?)):
                // Only the longer period was new: the message stays, with the period it had, and
                // the next update moves it as before (asking for that period no more).
                return (.delivered(state: TelegramMessageState(shareID: share, chat: chat, messageID: messageID,
                                                               livePeriodSeconds: period).bytes),
                        (.warning, "share \(share): Telegram refused the longer live_period (\(period) s): \(description); "
                            + "the message keeps its period (the chat may show its end earlier), the end still stops it"))
            case (.refused(let description), _):
                memory.closed = share
                return (.refused(reason: "Telegram refused \(call.method): \(description); "
                                 + "the share's message is lost, its remaining events are not sent"), nil)
            case (.floodWait(let retryAfter, let description), _):
                return (.retry(reason: "Telegram flood control: \(description)", after: retryAfter), nil)
            case (.unusable(let reason), _):
                return (.disabled(reason: reason), (.error, "\(reason); nothing is sent to chat \(chat) until the daemon is restarted"))
            case (.retry(let reason), _):
                return (.retry(reason: "\(call.method): \(reason)"), nil)
            }
        }
        if let (level, text) = note { log.log(level, "telegram: \(text)") }
        return outcome
    }
}
