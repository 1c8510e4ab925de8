import Delivery
import LiveLocation
import SystemIO

/// The MQTT connection's state as one value, in the shape of AsyncHTTPClient's
/// HTTP1ConnectionStateMachine: each `mutating func` takes one event (from `send`, `stop`, `run`,
/// libmosquitto's callbacks or the loop thread) and returns the `Action` the connection performs
/// (call libmosquitto, fulfil receipts, wait to reconnect, log a line) outside the decision. It does
/// no I/O: its transitions are tested without a broker (MQTTConnectionStateMachineTests).
///
/// An event is published only on a connection the broker accepted; events sent without one wait
/// (in order) and go out at the next CONNACK. Each published event is pending until every one of
/// its messages is acknowledged (by libmosquitto's message id, `mid`); when a connection ends,
/// every pending event is reported `retry` (in the order sent), and the waiting ones too on the
/// first failure of an outage only, so that a runner's backoff does not grow through it.
package struct MQTTConnectionStateMachine: Sendable {
    /// One event's messages, to publish in order; their mids go back with `messagesQueued`, or the
    /// first refusal with `publishFailed`.
    package struct Publication: Sendable {
        package let eventID: Int
        package let messages: [MQTTMessage]
    }

    /// A line for the log: the link's new state (one per change, not one per attempt).
    package struct LinkLog: Sendable, Equatable {
        package let level: LogLevel
        package let text: String
    }

    package enum Action: Sendable {
        /// Nothing to do.
        case none
        /// Start the loop thread.
        case startThread
        /// The loop thread is running already (`run` twice).
        case refuseRun
        /// Report `outcome` for each receipt, in order.
        case fulfil([DeliveryReceipt], DeliveryOutcome)
        /// Publish each event's messages (then `messagesQueued` or `publishFailed`).
        case publish(Publication)
        /// The broker accepted the connection: publish `messages` (untracked), subscribe to the
        /// command topic when `subscribe`, publish the waiting `events`, fulfil `delivered` (events
        /// with nothing to publish), log `log`.
        case announceConnection(messages: [MQTTMessage], subscribe: Bool, events: [Publication],
                                delivered: [DeliveryReceipt], log: LinkLog?)
        /// Stop while connected: publish `messages` (report their mids with `closingMessageQueued`),
        /// or, with none, send DISCONNECT at once; then wake the loop thread.
        case close(messages: [MQTTMessage])
        /// Wake the loop thread (out of its backoff wait).
        case wakeLoop
        /// The loop thread makes a new client (its will dated `firstAttemptAt`) and connects.
        case connect(firstAttemptAt: Timestamp)
        /// The loop thread reports `outcome` for `receipts`, logs `log` with the backoff after
        /// `failures` failures, waits it (or until woken), then asks `connectDue`.
        case waitToReconnect(afterFailures: Int, receipts: [DeliveryReceipt], outcome: DeliveryOutcome, log: LinkLog?)
        /// The loop thread reports `outcome` for `receipts`, resumes `waiters` and ends.
        case finish(receipts: [DeliveryReceipt], outcome: DeliveryOutcome, waiters: [CheckedContinuation<Void, Never>])
        /// Publish one message no event waits for (Home Assistant's countdown).
        case publishUntracked(MQTTMessage)
        /// Resume the tasks waiting for the loop thread's end.
        case resumeWaiters([CheckedContinuation<Void, Never>])
    }

    /// One event whose messages are out, waiting for their acknowledgements.
    private struct PendingEvent {
        var receipt: DeliveryReceipt
        var remaining: Int
        var isFinal: Bool
        var failure: DeliveryOutcome?
    }

    private let formatter: MQTTFormatter
    private let configuration: MQTTConfiguration

    /// The loop thread runs (between `runRequested` and `finish`).
    private var threadRunning = false
    private var stopping = false
    /// A client exists (between `clientCreated` and `clientClosed`).
    private var hasClient = false
    /// CONNACK accepted on the current client.
    private var connected = false
    package private(set) var link: LinkState = .disconnected(reason: "not started")
    private var publishState = MQTTPublishState()
    private var pending: [Int: PendingEvent] = [:]
    private var midToEvent: [Int32: Int] = [:]
    private var nextEventID = 0
    /// Events sent while no connection was up, in order.
    private var held: [(event: QueuedEvent, receipt: DeliveryReceipt)] = []
    /// The disconnect messages' ids, acknowledged before a clean disconnect.
    private var closingMids: Set<Int32> = []
    private var threadDoneWaiters: [CheckedContinuation<Void, Never>] = []
    /// The current attempt's CONNACK refusal, when the broker refused.
    private var connackRefusal: String?
    /// A DISCONNECT's reason code from the broker (MQTT 5), when it closed the connection.
    private var serverDisconnect: Int?
    /// libmosquitto's error log lines during the current attempt (TLS failures are told there).
    private var libraryErrors: [String] = []
    private var lastLoggedLink: String?
    /// Failed attempts in a row (a connection that was up counts as the first).
    private var failures = 0
    package private(set) var acknowledged = 0
    package private(set) var attempts = 0
    /// The broker's sessions seen: one more at each accepted CONNACK without a session present
    /// (the first connection, a broker that lost its state). A packet identifier names a command
    /// within one session only: a new session numbers its packets from 1 again.
    package private(set) var session = 0
    /// Whether the next failed attempt reports the waiting events `retry` (once per outage).
    private var failHeldOnFailure = true
    /// When the first connection attempt was made (OwnTracks' last will says so).
    private var firstAttemptAt: Timestamp?
    /// When the last update was formatted (Home Assistant's "Minutes left" counts down from it).
    private var countdownSince: ContinuousClock.Instant?

    package init(configuration: MQTTConfiguration) {
        self.configuration = configuration
        formatter = MQTTFormatter(configuration: configuration)
    }

    // MARK: - Queries

    /// A client whose connection the broker accepted: publishing on it is allowed.
    package var isConnected: Bool { hasClient && connected }
    package var isStopping: Bool { stopping }
    /// Every disconnect message was acknowledged.
    package var closingAcknowledged: Bool { closingMids.isEmpty }
    /// What the attempt learnt about its end: the broker's CONNACK refusal, its DISCONNECT reason
    /// code, libmosquitto's error lines.
    package var attemptDiagnosis: (refusal: String?, serverDisconnect: Int?, libraryErrors: [String]) {
        (connackRefusal, serverDisconnect, libraryErrors)
    }

    /// How long the loop thread may wait in libmosquitto before it looks at the machine again:
    /// nil (until something happens) while connected, since libmosquitto wakes for its keepalive,
    /// for the broker's packets and for every packet `send`, `stop` or `reply` queues; until Home
    /// Assistant's "Minutes left" goes down while it counts down; a second while connecting (the
    /// CONNACK's deadline, and a stop then queues nothing to wake it) and while stopping.
    package func loopWait(now: ContinuousClock.Instant) -> Duration? {
        guard isConnected, !stopping else { return .seconds(1) }
        guard let since = countdownSince, let due = formatter.homeAssistantCountdownDue(state: publishState) else { return nil }
        return max(since + due - now, .zero)
    }

    // MARK: - run and stop

    /// `run` was called.
    package mutating func runRequested() -> Action {
        guard !threadRunning else { return .refuseRun }
        threadRunning = true
        stopping = false
        return .startThread
    }

    /// The loop thread could not be started.
    package mutating func threadFailedToStart() {
        threadRunning = false
    }

    /// `stop` was called (or the running task was cancelled).
    package mutating func stopRequested() -> Action {
        guard !stopping else { return .none }
        stopping = true
        guard isConnected else { return .wakeLoop }
        return .close(messages: formatter.disconnectMessages(state: &publishState))
    }

    /// A disconnect message was queued as `mid`.
    package mutating func closingMessageQueued(mid: Int32) {
        closingMids.insert(mid)
    }

    /// A task waits for the loop thread's end.
    package mutating func threadEndAwaited(_ waiter: CheckedContinuation<Void, Never>) -> Action {
        guard threadRunning else { return .resumeWaiters([waiter]) }
        threadDoneWaiters.append(waiter)
        return .none
    }

    /// The bound on waiting for the loop thread's end passed.
    package mutating func threadEndWaitTimedOut() -> Action {
        defer { threadDoneWaiters.removeAll() }
        return .resumeWaiters(threadDoneWaiters)
    }

    // MARK: - The loop thread

    /// The loop thread started: the link is `connecting` until the first attempt ends.
    package mutating func threadStarted() -> LinkLog? {
        failures = 0
        link = .connecting
        return logLine(for: .connecting)
    }

    /// The loop thread is ready for an attempt (at start, after the backoff).
    package mutating func connectDue(now: Timestamp) -> Action {
        guard !stopping else { return finish() }
        if firstAttemptAt == nil { firstAttemptAt = now }
        return .connect(firstAttemptAt: firstAttemptAt ?? now)
    }

    /// The attempt's client exists and connects.
    package mutating func clientCreated() {
        hasClient = true
        connected = false
        connackRefusal = nil
        serverDisconnect = nil
        libraryErrors.removeAll()
        closingMids.removeAll()
        attempts += 1
    }

    /// The attempt's client is gone (it is destroyed next).
    package mutating func clientClosed() {
        hasClient = false
        connected = false
    }

    /// An attempt (and, when it was accepted, its connection) ended for `reason`.
    package mutating func attemptEnded(reason: String, wasConnected: Bool) -> Action {
        guard !stopping else { return finish() }
        failures = wasConnected ? 1 : failures + 1
        link = wasConnected ? .disconnected(reason: reason) : .refused(reason: reason)
        let includingHeld = failHeldOnFailure
        failHeldOnFailure = false
        return .waitToReconnect(afterFailures: failures, receipts: takeOutstanding(includingHeld: includingHeld),
                                outcome: .retry(reason: "MQTT: \(reason)"), log: logLine(for: link))
    }

    private mutating func finish() -> Action {
        let receipts = takeOutstanding(includingHeld: true)
        threadRunning = false
        link = .disconnected(reason: "stopped")
        defer { threadDoneWaiters.removeAll() }
        return .finish(receipts: receipts, outcome: .retry(reason: "MQTT destination stopped"), waiters: threadDoneWaiters)
    }

    /// Every event published and not acknowledged, in the order sent; and those waiting for a
    /// connection when `includingHeld`.
    private mutating func takeOutstanding(includingHeld: Bool) -> [DeliveryReceipt] {
        var receipts = pending.sorted { $0.key < $1.key }.map(\.value.receipt)
        pending.removeAll()
        midToEvent.removeAll()
        if includingHeld {
            receipts += held.map(\.receipt)
            held.removeAll()
        }
        return receipts
    }

    /// The loop thread looked up while connected: Home Assistant's share state again when its
    /// minutes left went down.
    package mutating func countdownDue(now: ContinuousClock.Instant) -> Action {
        guard isConnected, let since = countdownSince,
              let message = formatter.homeAssistantCountdown(elapsed: now - since, state: &publishState) else { return .none }
        return .publishUntracked(message)
    }

    // MARK: - libmosquitto's callbacks

    /// CONNACK with `code` (0: accepted).
    package mutating func connackReceived(code: Int, sessionPresent: Bool = false, now: ContinuousClock.Instant) -> Action {
        guard code == 0 else {
            connackRefusal = MQTTReasonCode.connectRefusal(code, protocolVersion: configuration.protocolVersion)
            return .none
        }
        guard hasClient else { return .none }
        if !sessionPresent || session == 0 { session += 1 }
        connected = true
        link = .connected
        failHeldOnFailure = true
        let messages = formatter.connectMessages(state: &publishState)
        let waiting = held
        held.removeAll()
        var events: [Publication] = []
        var delivered: [DeliveryReceipt] = []
        for (event, receipt) in waiting {
            if let publication = prepare(event, receipt: receipt, now: now) {
                events.append(publication)
            } else {
                delivered.append(receipt)
            }
        }
        return .announceConnection(messages: messages, subscribe: configuration.commands, events: events,
                                   delivered: delivered, log: logLine(for: .connected))
    }

    /// The broker's DISCONNECT (MQTT 5), or libmosquitto's own error below 128.
    package mutating func disconnectReceived(code: Int) {
        if code >= 0x80 { serverDisconnect = code }
    }

    /// libmosquitto logged an error line (kept for the attempt's reason: at most 8).
    package mutating func libraryErrorLogged(_ message: String) {
        if libraryErrors.count < 8 { libraryErrors.append(message) }
    }

    /// The broker acknowledged message `mid` with reason `code` (PUBACK, PUBCOMP; QoS 0 when written).
    package mutating func acknowledged(mid: Int32, code: Int) -> Action {
        if closingMids.remove(mid) != nil { return .none }
        guard let id = midToEvent.removeValue(forKey: mid), var event = pending[id] else { return .none }
        event.remaining -= 1
        if event.failure == nil, let failure = MQTTReasonCode.publishOutcome(code, isFinal: event.isFinal) {
            event.failure = failure
        }
        guard event.remaining == 0 else {
            pending[id] = event
            return .none
        }
        pending[id] = nil
        if event.failure == nil { acknowledged += 1 }
        return .fulfil([event.receipt], event.failure ?? .delivered())
    }

    // MARK: - send

    /// `send`: the event goes out now (connected), waits for a connection, or is refused (stopping).
    package mutating func publishRequested(_ event: QueuedEvent, receipt: DeliveryReceipt,
                                           now: ContinuousClock.Instant) -> Action {
        if stopping { return .fulfil([receipt], .retry(reason: "MQTT destination stopping")) }
        guard isConnected else {
            held.append((event, receipt))
            return .none
        }
        guard let publication = prepare(event, receipt: receipt, now: now) else { return .fulfil([receipt], .delivered()) }
        return .publish(publication)
    }

    /// Formats `event`; nil (delivered, counted) when it has nothing to publish, else its
    /// messages, pending from now on.
    private mutating func prepare(_ event: QueuedEvent, receipt: DeliveryReceipt, now: ContinuousClock.Instant) -> Publication? {
        let messages = formatter.messages(for: event, state: &publishState)
        if case .updated = event.event { countdownSince = now }
        guard !messages.isEmpty else {
            acknowledged += 1
            return nil
        }
        let id = nextEventID
        nextEventID += 1
        pending[id] = PendingEvent(receipt: receipt, remaining: messages.count, isFinal: event.event.isFinal)
        return Publication(eventID: id, messages: messages)
    }

    /// libmosquitto queued every message of the publication, as `mids` (in order).
    package mutating func messagesQueued(eventID: Int, mids: [Int32]) {
        guard pending[eventID] != nil else { return }
        for mid in mids { midToEvent[mid] = eventID }
    }

    /// libmosquitto refused one of the publication's messages: the event is sent again later.
    package mutating func publishFailed(eventID: Int, reason: String) -> Action {
        guard let event = pending.removeValue(forKey: eventID) else { return .none }
        return .fulfil([event.receipt], .retry(reason: reason))
    }

    // MARK: - The log

    /// The line for `link` when it differs from the line logged last.
    private mutating func logLine(for link: LinkState) -> LinkLog? {
        let line: LinkLog = switch link {
        case .connecting: LinkLog(level: .info, text: "connecting to \(configuration.broker)")
        case .connected: LinkLog(level: .notice, text: "connected to \(configuration.broker) as \(configuration.clientID)")
        case .refused(let reason): LinkLog(level: .warning, text: "connection refused: \(reason)")
        case .disconnected(let reason): LinkLog(level: .warning, text: "disconnected: \(reason)")
        }
        guard lastLoggedLink != line.text else { return nil }
        lastLoggedLink = line.text
        return line
    }
}
