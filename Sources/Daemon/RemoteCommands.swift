import Control
import Delivery
import SystemIO

/// The control protocol's start and stop from a destination's command channel (MQTT's
/// `mqtt.commands`): each command the destination receives (on `<prefix>/<device>/command`) is read as a request of the control protocol
/// (`ControlRequest.parseRemoteCommand`), done by the same handler as the control socket's
/// (`ShareController.handle`) and answered with the same reply, on the command's MQTT 5 response
/// topic with its correlation data, else on `<prefix>/<device>/command/reply`.
///
/// Who may command is the broker's ACL's decision (README: a mosquitto `acl_file` that lets only
/// Home Assistant's user publish there). Here:
/// - a retained command is ignored (it would be taken again at every connection), unanswered;
/// - a command already taken (the same correlation data, the same start `id`, or the same packet
///   sent again by the broker after a reconnect, in the same session of the broker's) is answered
///   again with its first reply, and does nothing: a second press does not start a second share;
/// - a command whose MQTT 5 message expiry passed never arrives: the broker drops it;
/// - a command that finds `CommandBacklog.defaultCapacity` (32) waiting is answered `busy` at
///   once (`refuse`), not done: nothing is dropped unanswered.
/// Each command taken, refused, ignored, repeated or answered busy is logged, through the logger's
/// rate limit (`Logger.limited`, one kind each), and a burst answered busy in part, when it is over,
/// with its count.
struct RemoteCommands: Sendable {
    let commands: AsyncStream<RemoteCommand>
    let reply: @Sendable ([UInt8], RemoteCommand) -> String?
    let handle: @Sendable (ControlRequest) async -> ControlResponse
    /// Tells the connection that a command is done; the burst it ended, if any.
    let done: @Sendable () -> CommandBacklog.Burst?
    let log: Logger

    /// - Parameters:
    ///   - reply: publishes a reply to a command; why it could not, or nil.
    ///   - handle: does what a request asks (`ShareController.handle`, the control socket's).
    ///   - done: called after each command taken from `commands` (`CommandChannel.commandDone`).
    init(commands: AsyncStream<RemoteCommand>, reply: @escaping @Sendable ([UInt8], RemoteCommand) -> String?,
         handle: @escaping @Sendable (ControlRequest) async -> ControlResponse,
         done: @escaping @Sendable () -> CommandBacklog.Burst? = { nil }, log: Logger) {
        self.commands = commands
        self.reply = reply
        self.handle = handle
        self.done = done
        self.log = log
    }

    /// The commands of a destination's channel, answered through it; those beyond its backlog
    /// answered `busy` at once.
    init(channel: any CommandChannel, handle: @escaping @Sendable (ControlRequest) async -> ControlResponse,
         log: Logger) {
        let reply: @Sendable ([UInt8], RemoteCommand) -> String? = { payload, command in channel.reply(payload, to: command) }
        // The channel keeps the refusal handler: it must not hold the channel (a cycle that outlived
        // the daemon's end; LeakSanitizer's report in the MQTT command tests).
        let commands = channel.takeCommands { [weak channel] command, refusal in
            guard let channel else { return }
            Self.refuse(command, refusal, reply: { payload, command in channel.reply(payload, to: command) }, log: log)
        }
        self.init(commands: commands, reply: reply, handle: handle, done: { channel.commandDone() }, log: log)
    }

    /// Takes the commands in the order they arrive, until cancelled.
    func run() async {
        var memory = CommandMemory()
        for await command in commands {
            await take(command, memory: &memory)
            if let burst = done() { logBurst(burst) }
        }
    }

    /// Answers a command that found the backlog full (or nobody to take it) with `busy`, at once and
    /// without doing it (a retained one stays unanswered, as in `take`).
    func refuse(_ command: RemoteCommand, _ refusal: CommandBacklog.Refusal) {
        Self.refuse(command, refusal, reply: reply, log: log)
    }

    private static func refuse(_ command: RemoteCommand, _ refusal: CommandBacklog.Refusal,
                               reply: @Sendable ([UInt8], RemoteCommand) -> String?, log: Logger) {
        guard !command.retained else { return logRetained(log) }
        let message = switch refusal.reason {
        case .full: "\(refusal.waiting) commands are waiting their turn; this one was not done: send it again later"
        case .closed: "livelocd is stopping; this command was not done: send it again later"
        }
        send(Array(ControlResponse.failure(.busy, message).line.dropLast()), to: command, reply: reply, log: log)
        log.limited(.warning, key: "mqtt command busy", "mqtt: answered a command busy, not done (\(refusal.waiting) waiting; \(refusal.refusedSinceStart.thousandsSeparated) since start)") { count, window in
            "mqtt: answered \(count.thousandsSeparated) more commands busy in the last \(window.shortText)"
        }
    }

    private func logBurst(_ burst: CommandBacklog.Burst) {
        log.limited(.warning, key: "mqtt command burst", "mqtt: a burst of commands is over: \(burst.refused.thousandsSeparated) answered busy, not done; \(burst.taken.thousandsSeparated) taken (at most \(CommandBacklog.defaultCapacity) wait their turn)") { count, window in
            "mqtt: \(count.thousandsSeparated) more bursts of commands answered busy in part in the last \(window.shortText)"
        }
    }

    private static func logRetained(_ log: Logger) {
        log.limited(.warning, key: "mqtt command retained", "mqtt: ignored a retained command (it would be taken at every connection); publish commands without retain") { count, window in
            "mqtt: ignored \(count.thousandsSeparated) more retained commands in the last \(window.shortText)"
        }
    }

    func take(_ command: RemoteCommand, memory: inout CommandMemory) async {
        guard !command.retained else { return Self.logRetained(log) }
        let parsed = ControlRequest.parseRemoteCommand(command.payload)
        let keys = CommandMemory.keys(of: command, request: try? parsed.get())
        let now = ContinuousClock.now
        if let earlier = memory.reply(for: keys, at: now) {
            send(earlier, to: command)
            log.limited(.notice, key: "mqtt command repeated", "mqtt: a command taken before came again (same correlation data, id or packet); answered again, nothing done") { count, window in
                "mqtt: \(count.thousandsSeparated) more repeated commands answered without acting in the last \(window.shortText)"
            }
            return
        }
        let response: ControlResponse
        switch parsed {
        case .failure(let failure):
            response = .failure(failure)
        case .success(let request):
            response = await handle(request)
        }
        let line = Array(response.line.dropLast())
        if response.ok {
            memory.remember(keys, reply: line, at: now)
            let what = (try? parsed.get()).map(Self.describe) ?? "command"
            log.limited(.notice, key: "mqtt command taken", "mqtt: command \(what) taken" + (response.share.map { ": share \($0.id)" } ?? "")) { count, window in
                "mqtt: \(count.thousandsSeparated) more commands taken in the last \(window.shortText)"
            }
        } else if let error = response.error {
            log.limited(.warning, key: "mqtt command refused \(error.code.rawValue)", "mqtt: command refused: \(error)") { count, window in
                "mqtt: refused \(count.thousandsSeparated) more commands (\(error.code.rawValue)) in the last \(window.shortText)"
            }
        }
        send(line, to: command)
    }

    private func send(_ line: [UInt8], to command: RemoteCommand) {
        Self.send(line, to: command, reply: reply, log: log)
    }

    private static func send(_ line: [UInt8], to command: RemoteCommand, reply: @Sendable ([UInt8], RemoteCommand) -> String?,
                             log: Logger) {
        guard let failure = reply(line, command) else { return }
        log.limited(.warning, key: "mqtt reply failed", "mqtt: cannot send a command's reply: \(failure)") { count, window in
            "mqtt: \(count.thousandsSeparated) more replies not sent in the last \(window.shortText)"
        }
    }

    private static func describe(_ request: ControlRequest) -> String {
        switch request {
        case .start(let duration, _): "start \(duration.rawValue)"
        case .stop: "stop"
        case .extend(let amount): "extend \(amount.rawValue)"
        case .status: "status"
        case .track: "track"
        }
    }
}

/// The commands taken lately, by what identifies each, with the reply each got: a command that
/// comes again gets that reply again instead of being done twice. Bounded in count and age.
struct CommandMemory: Sendable {
    enum Key: Hashable, Sendable {
        /// MQTT 5 correlation data: one request of one requester.
        case correlation([UInt8])
        /// A start's caller id: the share it names.
        case shareID(String)
        /// A PUBLISH the broker sent again after a reconnect: the same packet identifier and payload
        /// within the same session of the broker's (a new session numbers its packets from 1 again:
        /// the same button pressed after a broker restart without persistence is a new press).
        case packet(session: Int, Int32, [UInt8])
    }

    /// The most commands remembered.
    static let capacity = 64
    /// How long a correlation or a share id is remembered (the longest share).
    static let requestLifetime: Duration = .seconds(8 * 3600)
    /// How long a packet is: a broker sends one again within a reconnect, and packet identifiers
    /// come round again (after 65,535 messages, or a broker that lost its state).
    static let packetLifetime: Duration = .seconds(120)

    private var entries: [(key: Key, reply: [UInt8], until: ContinuousClock.Instant)] = []

    /// What identifies `command`: its correlation data, a start's id, its packet.
    static func keys(of command: RemoteCommand, request: ControlRequest?) -> [Key] {
        var keys: [Key] = []
        if let correlation = command.correlationData { keys.append(.correlation(correlation)) }
        if case .start(_, let id?) = request { keys.append(.shareID(id.rawValue)) }
        if command.packetID != 0 { keys.append(.packet(session: command.session, command.packetID, command.payload)) }
        return keys
    }

    /// The reply of a command taken before under one of `keys`, nil if none.
    mutating func reply(for keys: [Key], at now: ContinuousClock.Instant) -> [UInt8]? {
        entries.removeAll { $0.until <= now }
        return entries.last { keys.contains($0.key) }?.reply
    }

    mutating func remember(_ keys: [Key], reply: [UInt8], at now: ContinuousClock.Instant) {
        for key in keys {
            let lifetime = if case .packet = key { Self.packetLifetime } else { Self.requestLifetime }
            entries.append((key, reply, now + lifetime))
        }
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }
}
