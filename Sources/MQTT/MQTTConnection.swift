#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Delivery
import LiveLocation
import Locking
import SystemIO


/// One MQTT client on a thread of its own: connects, reconnects with capped jittered backoff,
/// publishes events in the order `send` is called, and reports each event's outcome when the broker
/// acknowledged all of its messages (PUBACK for QoS 1, PUBCOMP for QoS 2, written to the socket for
/// QoS 0).
///
/// Every connection attempt gets a new libmosquitto client, and when a connection ends every event
/// published on it and not yet acknowledged is reported `retry`: the destination's queue in the
/// journal is the only queue, and libmosquitto never re-sends on its own what the runner sends
/// again. Events sent while no connection is up wait (at most the runner's window) and are
/// published as soon as a connection is accepted. The first failed attempt after a connection
/// (or after start) also reports the waiting ones `retry`, with the reason, so that the runner's
/// status says why; the runner's re-sends then wait for the connection without further failures,
/// so that its backoff does not grow through a long outage and delivery resumes at once after it.
///
/// Threads: the loop thread runs libmosquitto (`mosquitto_loop`) and its callbacks; `send` and
/// `stop` come from any thread. libmosquitto is in threaded mode, so a publish from another thread
/// only queues the packet and wakes the loop. What the connection knows is one value,
/// `MQTTConnectionStateMachine`: each event goes in under its lock and comes out as an action,
/// performed here outside it. The libmosquitto client has a lock of its own (`client`, taken before
/// the machine's): a publish and the recording of its message ids happen under it, so that the
/// acknowledgement callback, which takes it too, always finds its id. The client is destroyed only
/// by the loop thread, after taking it out of `client`.
package final class MQTTConnection: CommandChannel, Sendable {
    package let configuration: MQTTConfiguration
    package let formatter: MQTTFormatter
    private let log: Logger
    private let machine: Locked<MQTTConnectionStateMachine>
    /// The current attempt's libmosquitto client.
    private let client = Locked<Handle?>(nil)
    /// The commands received (`mqtt.commands`), in order, for one consumer (`takeCommands`). The
    /// stream's own buffer is unbounded: `backlog` bounds what is in it.
    private let commands: AsyncStream<RemoteCommand>
    private let commandSink: AsyncStream<RemoteCommand>.Continuation
    private let backlog: Locked<CommandBacklog>
    /// Answers a command refused (`takeCommands`), on the loop thread.
    private let refuseCommand = Locked<(@Sendable (RemoteCommand, CommandBacklog.Refusal) -> Void)?>(nil)
    /// Wakes the loop thread out of its backoff wait (`stop`).
    private let wakeup: WakeupPipe

    /// The libmosquitto client, only touched under `client`'s lock or by the loop thread that owns it.
    private struct Handle: @unchecked Sendable {
        let raw: OpaquePointer
    }

    /// - Parameter log: one line per change of the connection's state; never the password.
    /// - Throws: `SystemError` when the wake-up pipe cannot be made, `MQTTConnectionError` when
    ///   libmosquitto cannot be loaded or initialised.
    package init(configuration: MQTTConfiguration, log: Logger) throws {
        // libmosquitto is loaded (and initialised) by the first connection, not linked: a daemon
        // without an MQTT destination maps neither it nor its OpenSSL.
        if let error = cmosquitto_load() {
            throw MQTTConnectionError.library("libmosquitto: \(String(cString: error))")
        }
        wakeup = try WakeupPipe(pollable: true)
        self.configuration = configuration
        formatter = MQTTFormatter(configuration: configuration)
        machine = Locked(MQTTConnectionStateMachine(configuration: configuration))
        self.log = log
        backlog = Locked(CommandBacklog())
        (commands, commandSink) = AsyncStream.makeStream(of: RemoteCommand.self, bufferingPolicy: .unbounded)
    }

    /// The commands received on `<prefix>/<device>/command`, in order, for one consumer, which
    /// calls `commandDone` when it is done with each (done, repeated or ignored). At most the
    /// backlog's capacity wait; a command that finds them all waiting (or comes once the consumer
    /// is gone) is not queued but given to `refuse`, at once, on the loop thread (it must not
    /// block: it answers `busy` through `reply` and logs). Call it once, before `run`.
    package func takeCommands(refusing refuse: @escaping @Sendable (RemoteCommand, CommandBacklog.Refusal) -> Void)
        -> AsyncStream<RemoteCommand> {
        refuseCommand.withLock { $0 = refuse }
        return commands
    }

    /// The consumer of `takeCommands` is done with one command. Returns the burst of commands that
    /// overflowed the backlog when this emptied it, for the log.
    package func commandDone() -> CommandBacklog.Burst? {
        backlog.withLock { $0.done() }
    }

    deinit {
        commandSink.finish()
        wakeup.close()
    }

    /// Publishes the reply to `command` (QoS 1, not retained): on its response topic with its
    /// correlation data when it named one (MQTT 5), else on `<prefix>/<device>/command/reply`.
    /// Returns why it could not be queued (no connection, a response topic libmosquitto refuses).
    @discardableResult
    package func reply(_ payload: [UInt8], to command: RemoteCommand) -> String? {
        let topic = command.responseTopic ?? formatter.topics.commandReply
        return client.withLock { handle -> String? in
            guard let handle, machine.withLock({ $0.isConnected }) else { return "not connected" }
            var properties: OpaquePointer?
            defer { cmosquitto_property_free_all(&properties) }
            if let correlation = command.correlationData, configuration.protocolVersion == .v5 {
                let code = correlation.withUnsafeBytes { bytes in
                    cmosquitto_property_add_binary(&properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), bytes.baseAddress,
                                                  UInt16(clamping: bytes.count))
                }
                guard code == MOSQ_ERR_SUCCESS.rawValue else { return Self.libraryMessage(code) }
            }
            var mid: Int32 = 0
            let code = payload.withUnsafeBytes { bytes in
                cmosquitto_publish_v5(handle.raw, &mid, topic, Int32(bytes.count), bytes.baseAddress,
                                     Int32(MQTTQoS.atLeastOnce.rawValue), false, properties)
            }
            return code == MOSQ_ERR_SUCCESS.rawValue ? nil : "\(topic): \(Self.libraryMessage(code))"
        }
    }

    // MARK: - The destination's side

    /// The connection's state for `liveloc status`.
    package var link: LinkState { machine.withLock { $0.link } }

    /// Events acknowledged by the broker since start.
    package var acknowledgedCount: Int { machine.withLock { $0.acknowledged } }

    /// Connection attempts made since start.
    package var attemptCount: Int { machine.withLock { $0.attempts } }

    /// Formats `event` and publishes its messages now (connected) or at the next connection.
    package func send(_ event: QueuedEvent) -> DeliveryReceipt {
        let receipt = DeliveryReceipt()
        let after = client.withLock { handle in
            perform(machine.withLock { $0.publishRequested(event, receipt: receipt, now: .now) }, on: handle)
        }
        perform(after)
        return receipt
    }

    /// Starts the loop thread, keeps the connection until the calling task is cancelled, then
    /// publishes the format's disconnect messages (Home Assistant: `offline`), disconnects cleanly and
    /// returns (within about 5 s whatever the broker does). It may run again after it returned.
    /// - Throws: `MQTTConnectionError.alreadyRunning`, or `SystemError` when the thread cannot start.
    package func run() async throws {
        guard case .startThread = machine.withLock({ $0.runRequested() }) else { throw MQTTConnectionError.alreadyRunning }
        do {
            try startDetachedThread(name: "livelocd-mqtt") { self.loop() }
        } catch {
            machine.withLock { $0.threadFailedToStart() }
            throw error
        }
        // No timer while connected: the task waits for its cancellation, the loop thread in libmosquitto.
        await waitUntilCancelled()
        stop()
        await waitForThread(atMost: .seconds(5))
    }

    /// Asks the loop thread to publish the disconnect messages, disconnect and end.
    package func stop() {
        let after = client.withLock { handle in
            perform(machine.withLock { $0.stopRequested() }, on: handle)
        }
        perform(after)
    }

    private func waitForThread(atMost limit: Duration) async {
        // An unstructured task: not cancelled with the caller, so the bound holds. DeadlineTimer,
        // not Task.sleep: no wake-up a second while it waits.
        let timer = Task { [weak self] in
            do { try await DeadlineTimer.sleep(for: limit) } catch { return }  // cancelled: the thread ended in time
            guard let self else { return }
            perform(machine.withLock { $0.threadEndWaitTimedOut() })
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            perform(machine.withLock { $0.threadEndAwaited(continuation) })
        }
        timer.cancel()
    }

    // MARK: - Performing the machine's actions

    /// Performs what needs the client (publish, subscribe, disconnect), under `client`'s lock held
    /// by the caller, feeding the message ids back to the machine; returns what remains to do
    /// (fulfil receipts, log, wake the loop thread) once the lock is released.
    private func perform(_ action: MQTTConnectionStateMachine.Action, on handle: Handle?) -> [MQTTConnectionStateMachine.Action] {
        switch action {
        case .publish(let publication):
            guard let handle else {
                return [machine.withLock { $0.publishFailed(eventID: publication.eventID, reason: "MQTT: not connected") }]
            }
            return [publish(publication, on: handle)]
        case .announceConnection(let messages, let subscribe, let events, let delivered, _):
            guard let handle else { return [action] }
            for message in messages {
                var mid: Int32 = 0
                _ = publishMessage(message, on: handle, mid: &mid)
            }
            if subscribe { subscribeToCommands(on: handle) }
            var after = events.map { publish($0, on: handle) }
            if !delivered.isEmpty { after.append(.fulfil(delivered, .delivered())) }
            after.append(action)
            return after
        case .close(let messages):
            if let handle {
                for message in messages {
                    var mid: Int32 = 0
                    if publishMessage(message, on: handle, mid: &mid) == MOSQ_ERR_SUCCESS.rawValue {
                        machine.withLock { $0.closingMessageQueued(mid: mid) }
                    }
                }
                // Nothing to publish first: disconnect now, which also wakes the loop at once (a
                // packet queued from another thread does).
                if machine.withLock({ $0.closingAcknowledged }) { disconnect(handle) }
            }
            return [.wakeLoop]
        case .publishUntracked(let message):
            guard let handle else { return [] }
            var mid: Int32 = 0
            _ = publishMessage(message, on: handle, mid: &mid)
            return []
        default:
            return [action]
        }
    }

    /// Performs what needs no lock.
    private func perform(_ actions: [MQTTConnectionStateMachine.Action]) {
        for action in actions { perform(action) }
    }

    private func perform(_ action: MQTTConnectionStateMachine.Action) {
        switch action {
        case .fulfil(let receipts, let outcome):
            for receipt in receipts { receipt.fulfil(outcome) }
        case .announceConnection(_, _, _, _, let line):
            if let line { log.log(line.level, "mqtt: \(line.text)") }
        case .wakeLoop:
            wakeup.wake()
        case .resumeWaiters(let waiters):
            for waiter in waiters { waiter.resume() }
        case .none, .startThread, .refuseRun, .publish, .close, .connect, .waitToReconnect, .finish, .publishUntracked:
            break
        }
    }

    /// Publishes one event's messages in order (the caller holds `client`'s lock) and tells the
    /// machine their ids, or the refusal.
    private func publish(_ publication: MQTTConnectionStateMachine.Publication, on handle: Handle) -> MQTTConnectionStateMachine.Action {
        var mids: [Int32] = []
        for message in publication.messages {
            var mid: Int32 = 0
            let code = publishMessage(message, on: handle, mid: &mid)
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                let reason = "MQTT publish on \(message.topic) failed: \(Self.libraryMessage(code))"
                return machine.withLock { $0.publishFailed(eventID: publication.eventID, reason: reason) }
            }
            mids.append(mid)
        }
        machine.withLock { $0.messagesQueued(eventID: publication.eventID, mids: mids) }
        return .none
    }

    /// One PUBLISH through libmosquitto (queued; the loop thread writes it). Its MQTT 5 message
    /// expiry, when set, goes as the message expiry interval property.
    private func publishMessage(_ message: MQTTMessage, on handle: Handle, mid: inout Int32) -> Int32 {
        var properties: OpaquePointer?
        defer { cmosquitto_property_free_all(&properties) }
        if let expiry = message.messageExpirySeconds, configuration.protocolVersion == .v5 {
            let code = cmosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry)
            guard code == MOSQ_ERR_SUCCESS.rawValue else { return code }
        }
        return message.payload.withUnsafeBytes { payload in
            cmosquitto_publish_v5(handle.raw, &mid, message.topic, Int32(payload.count), payload.baseAddress,
                                 Int32(message.qos.rawValue), message.retain, properties)
        }
    }

    // MARK: - Callbacks (on the loop thread, inside mosquitto_loop)

    /// - Parameter flags: CONNACK's acknowledge flags; bit 0 is "session present".
    fileprivate func connected(code: Int32, flags: Int32) {
        let after = client.withLock { handle in
            perform(machine.withLock { $0.connackReceived(code: Int(code), sessionPresent: flags & 1 != 0, now: .now) }, on: handle)
        }
        perform(after)
    }

    /// Subscribes to the command topic, QoS 1 (again on every connection: the session may be new).
    /// MQTT 5: "retain as published", so that a retained command shows as one and is not taken.
    private func subscribeToCommands(on handle: Handle) {
        var mid: Int32 = 0
        let options = configuration.protocolVersion == .v5 ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
        let code = cmosquitto_subscribe_v5(handle.raw, &mid, formatter.topics.command, Int32(MQTTQoS.atLeastOnce.rawValue),
                                          options, nil)
        if code != MOSQ_ERR_SUCCESS.rawValue {
            log.error("mqtt: cannot subscribe to \(formatter.topics.command): \(Self.libraryMessage(code))")
        }
    }

    fileprivate func received(_ message: UnsafePointer<mosquitto_message>, properties: OpaquePointer?) {
        let raw = message.pointee
        guard raw.topic.map({ String(cString: $0) }) == formatter.topics.command else { return }
        let payload = raw.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(raw.payloadlen))) } ?? []
        var command = RemoteCommand(payload: payload, packetID: raw.mid, session: machine.withLock { $0.session },
                                  retained: raw.retain)
        var text: UnsafeMutablePointer<CChar>?
        if cmosquitto_property_read_string(properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text, false) != nil, let text {
            command.responseTopic = String(cString: text)
            free(text)
        }
        var data: UnsafeMutableRawPointer?
        var length: UInt16 = 0
        if cmosquitto_property_read_binary(properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false) != nil {
            command.correlationData = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
            free(data)
        }
        switch backlog.withLock({ $0.arrived() }) {
        case .take:
            if case .terminated = commandSink.yield(command) {
                refuse(command, backlog.withLock { $0.notHanded() })
            }
        case .refuse(let refusal):
            refuse(command, refusal)
        }
    }

    private func refuse(_ command: RemoteCommand, _ refusal: CommandBacklog.Refusal) {
        if let refuse = refuseCommand.withLock({ $0 }) {
            refuse(command, refusal)
        } else {
            log.limited(.error, key: "mqtt command unanswered", "mqtt: a command came with nobody to take it (not answered)") { count, window in
                "mqtt: \(count.thousandsSeparated) more commands came with nobody to take them in the last \(window.shortText)"
            }
        }
    }

    fileprivate func published(mid: Int32, code: Int32) {
        // Under `client`'s lock: a publish from another thread has recorded its ids before.
        let action = client.withLock { _ in machine.withLock { $0.acknowledged(mid: mid, code: Int(code)) } }
        perform(action)
    }

    fileprivate func disconnected(code: Int32) {
        machine.withLock { $0.disconnectReceived(code: Int(code)) }
    }

    fileprivate func libraryLog(level: Int32, message: String) {
        guard level == MOSQ_LOG_ERR else { return }
        machine.withLock { $0.libraryErrorLogged(message) }
    }

    // MARK: - The loop thread

    /// How one connection (or attempt) ended.
    private struct Ending {
        var reason: String
        /// The broker had accepted the connection.
        var wasConnected: Bool
    }

    /// The loop thread: one attempt after another, with the backoff between, until stopped.
    private func loop() {
        // Until the first attempt ends; after that the last failure stays shown while retrying.
        if let line = machine.withLock({ $0.threadStarted() }) { log.log(line.level, "mqtt: \(line.text)") }
        var action = machine.withLock { $0.connectDue(now: WallClock().now) }
        while true {
            switch action {
            case .connect(let firstAttemptAt):
                let ending = connectAndServe(firstAttemptAt: firstAttemptAt)
                action = machine.withLock { $0.attemptEnded(reason: ending.reason, wasConnected: ending.wasConnected) }
            case .waitToReconnect(let failures, let receipts, let outcome, let line):
                let delay = configuration.reconnect.delay(afterFailures: failures, retryAfter: nil)
                for receipt in receipts { receipt.fulfil(outcome) }
                if let line { log.log(line.level, "mqtt: \(line.text); retrying in \(delay.shortText) with backoff") }
                waitForWake(delay)
                action = machine.withLock { $0.connectDue(now: WallClock().now) }
            case .finish(let receipts, let outcome, let waiters):
                for receipt in receipts { receipt.fulfil(outcome) }
                for waiter in waiters { waiter.resume() }
                return
            default:
                perform(action)
                return
            }
        }
    }

    /// One connection attempt and, when it succeeds, the connection's life.
    private func connectAndServe(firstAttemptAt: Timestamp) -> Ending {
        let handle: Handle
        do {
            handle = try makeClient(firstAttemptAt: firstAttemptAt)
        } catch {
            return Ending(reason: "\(error)", wasConnected: false)
        }
        client.withLock { client in
            client = handle
            machine.withLock { $0.clientCreated() }
        }
        let ending = serve(handle)
        client.withLock { client in
            client = nil
            machine.withLock { $0.clientClosed() }
        }
        cmosquitto_destroy(handle.raw)
        return ending
    }

    private func serve(_ handle: Handle) -> Ending {
        let broker = configuration.broker
        var code: Int32
        switch configuration.protocolVersion {
        case .v5:
            var properties: OpaquePointer?
            defer { cmosquitto_property_free_all(&properties) }
            _ = cmosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue),
                                             configuration.sessionExpirySeconds)
            code = cmosquitto_connect_bind_v5(handle.raw, broker.host, Int32(broker.port), keepaliveSeconds, nil, properties)
        case .v311:
            code = cmosquitto_connect_bind(handle.raw, broker.host, Int32(broker.port), keepaliveSeconds, nil)
        }
        let connectErrno = cmosquitto_errno()
        guard code == MOSQ_ERR_SUCCESS.rawValue else {
            return Ending(reason: describeFailure(code, errno: connectErrno, connected: false), wasConnected: false)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.connectTimeout
        while true {
            // libmosquitto shortens the wait to its next keepalive packet by itself.
            let wait = machine.withLock { $0.loopWait(now: .now) }
            // Rounded up: a wait cut short by rounding would find nothing due and wait again.
            let milliseconds = wait.map { Int32(clamping: ($0 + .nanoseconds(999_999)).wholeMilliseconds) }
            code = cmosquitto_loop(handle.raw, milliseconds ?? Self.untilSomethingHappens, 1)
            let loopErrno = cmosquitto_errno()
            // Under the client's lock too: `stop()` holds it from the moment the machine says
            // stopping until the disconnect messages are queued and their mids recorded, so a stop
            // seen here has them out (read under the machine's lock alone, the loop could send
            // DISCONNECT before Home Assistant's "offline": seen once under ThreadSanitizer).
            let (connected, stopping) = client.withLock { _ in machine.withLock { ($0.isConnected, $0.isStopping) } }
            if stopping {
                closeCleanly(handle, connected: connected)
                return Ending(reason: "stopped", wasConnected: connected)
            }
            if code != MOSQ_ERR_SUCCESS.rawValue {
                return Ending(reason: describeFailure(code, errno: loopErrno, connected: connected), wasConnected: connected)
            }
            if connected && formatter.format == .homeassistant { sayCountdown() }
            if !connected && clock.now > deadline {
                return Ending(reason: "unreachable: no CONNACK from \(broker) within \(configuration.connectTimeout)",
                              wasConnected: false)
            }
        }
    }

    /// Home Assistant's share state again when its minutes left went down since it was said.
    private func sayCountdown() {
        _ = client.withLock { handle in perform(machine.withLock { $0.countdownDue(now: .now) }, on: handle) }
    }

    /// Waits (at most 2 s) for the disconnect messages' acknowledgements, then sends DISCONNECT.
    private func closeCleanly(_ handle: Handle, connected: Bool) {
        guard connected else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while !machine.withLock({ $0.closingAcknowledged }) && clock.now < deadline {
            guard cmosquitto_loop(handle.raw, 100, 1) == MOSQ_ERR_SUCCESS.rawValue else { return }
        }
        disconnect(handle)
        let closeDeadline = clock.now + .seconds(1)
        while clock.now < closeDeadline {
            guard cmosquitto_loop(handle.raw, 100, 1) == MOSQ_ERR_SUCCESS.rawValue else { return }
        }
    }

    /// Queues DISCONNECT (normal disconnection: the broker does not publish the will).
    private func disconnect(_ handle: Handle) {
        switch configuration.protocolVersion {
        case .v5: _ = cmosquitto_disconnect_v5(handle.raw, 0, nil)
        case .v311: _ = cmosquitto_disconnect(handle.raw)
        }
    }

    /// `mosquitto_loop`'s wait when the machine waits for nothing but packets: a day (libmosquitto
    /// wakes earlier for its keepalive).
    private static let untilSomethingHappens: Int32 = 86_400_000

    private var keepaliveSeconds: Int32 {
        Int32(clamping: max(configuration.keepalive.components.seconds, 5))
    }

    /// A new libmosquitto client with every option, the will and the callbacks set.
    private func makeClient(firstAttemptAt: Timestamp) throws(MQTTConnectionError) -> Handle {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let raw = cmosquitto_new(configuration.clientID, false, context) else {
            throw .library("mosquitto_new failed (out of memory, or an invalid client id)")
        }
        let handle = Handle(raw: raw)
        do {
            try configure(handle, firstAttemptAt: firstAttemptAt)
        } catch {
            cmosquitto_destroy(raw)
            throw error
        }
        return handle
    }

    private func configure(_ handle: Handle, firstAttemptAt: Timestamp) throws(MQTTConnectionError) {
        let raw = handle.raw
        func check(_ code: Int32, _ what: String) throws(MQTTConnectionError) {
            guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .library("\(what): \(Self.libraryMessage(code))") }
        }
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(cmosquitto_int_option(raw, MOSQ_OPT_PROTOCOL_VERSION, version), "MQTT protocol version")
        try check(cmosquitto_int_option(raw, MOSQ_OPT_TCP_NODELAY, 1), "TCP_NODELAY")
        try check(cmosquitto_threaded_set(raw, true), "threaded mode")
        if let user = configuration.user {
            try check(cmosquitto_username_pw_set(raw, user, configuration.password), "user name and password")
        }
        if let will = formatter.will(firstConnectedAt: firstAttemptAt) {
            let code = will.payload.withUnsafeBytes { payload in
                cmosquitto_will_set_v5(raw, will.topic, Int32(payload.count), payload.baseAddress,
                                      Int32(will.qos.rawValue), will.retain, nil)
            }
            try check(code, "last will")
        }
        if configuration.broker.usesTLS {
            // The CA file, or the system store; a client certificate when given. A key protected by a
            // passphrase is refused rather than asked for on a terminal.
            let code = cmosquitto_tls_set(raw, configuration.caFile, configuration.caFile == nil ? "/etc/ssl/certs" : nil,
                                         configuration.clientCertificate, configuration.clientKey) { _, _, _, _ in 0 }
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                throw .library("bad certificate: cannot use the CA file or client certificate/key "
                    + "(\([configuration.caFile, configuration.clientCertificate, configuration.clientKey].compactMap { $0 }.joined(separator: ", "))): "
                    + Self.libraryMessage(code))
            }
            // SSL_VERIFY_PEER; host name checks stay on (tls_insecure false).
            try check(cmosquitto_tls_opts_set(raw, 1, nil, nil), "TLS options")
            try check(cmosquitto_tls_insecure_set(raw, false), "TLS host name checks")
        }
        cmosquitto_connect_v5_callback_set(raw) { _, context, code, flags, _ in
            MQTTConnection.from(context)?.connected(code: code, flags: flags)
        }
        cmosquitto_publish_v5_callback_set(raw) { _, context, mid, code, _ in
            MQTTConnection.from(context)?.published(mid: mid, code: code)
        }
        cmosquitto_message_v5_callback_set(raw) { _, context, message, properties in
            guard let message else { return }
            MQTTConnection.from(context)?.received(message, properties: properties)
        }
        cmosquitto_disconnect_v5_callback_set(raw) { _, context, code, _ in
            MQTTConnection.from(context)?.disconnected(code: code)
        }
        cmosquitto_log_callback_set(raw) { _, context, level, text in
            guard let text else { return }
            MQTTConnection.from(context)?.libraryLog(level: level, message: String(cString: text))
        }
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTConnection? {
        context.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Why an attempt or a connection ended, for `liveloc status` and the log: its category first
    /// (`not authorized`, `bad certificate`, `not TLS`, `unreachable`, `connection lost`), then the detail.
    private func describeFailure(_ code: Int32, errno: Int32, connected: Bool) -> String {
        let (refusal, server, libraryErrors) = machine.withLock { $0.attemptDiagnosis }
        if let refusal { return refusal }
        let broker = configuration.broker
        if let server {
            return "broker closed the connection: \(MQTTReasonCode.meaning(server)) (MQTT 5 reason code \(server))"
        }
        switch code {
        case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue:
            let detail = libraryErrors.isEmpty ? Self.libraryMessage(code) : libraryErrors.joined(separator: "; ")
            if Self.peerSpeaksNoTLS(detail) {
                return "not TLS: \(broker) does not speak TLS (it hung up on the TLS greeting or answered in plain text): "
                    + "a plain MQTT port? use mqtt:// there, or the broker's TLS port (usually 8883) (\(detail))"
            }
            return "bad certificate: TLS with \(broker) failed: \(detail)"
        case MOSQ_ERR_EAI.rawValue:
            return "unreachable: cannot resolve \(broker.host): \(String(cString: gai_strerror(errno)))"
        case MOSQ_ERR_ERRNO.rawValue:
            let text = String(cString: strerror(errno))
            return connected ? "connection lost: \(text)" : "unreachable: \(text) (\(broker))"
        case MOSQ_ERR_KEEPALIVE.rawValue:
            return "connection lost: no answer from \(broker) within the keepalive"
        case MOSQ_ERR_CONN_LOST.rawValue, MOSQ_ERR_NO_CONN.rawValue:
            return connected ? "connection lost" : "unreachable: \(broker) closed the connection before accepting it"
        default:
            let text = Self.libraryMessage(code)
            return connected ? "connection lost: \(text)" : "refused: \(text)"
        }
    }

    /// Whether OpenSSL's errors say that the peer is no TLS server: it closed the connection at the
    /// ClientHello (a plain MQTT broker drops what is no MQTT packet: "unexpected eof while
    /// reading"), or what came back is no TLS record ("wrong version number", "packet length too
    /// long", "http request", "record layer failure"). A certificate problem reads differently
    /// ("certificate verify failed", "host name verification failed").
    static func peerSpeaksNoTLS(_ openSSLErrors: String) -> Bool {
        ["unexpected eof while reading", "wrong version number", "packet length too long", "http request",
         "record layer failure", "unknown protocol"].contains { openSSLErrors.contains($0) }
    }

    private static func libraryMessage(_ code: Int32) -> String {
        String(cString: cmosquitto_strerror(code))
    }

    /// Sleeps `delay`, or less when `stop` writes to the wake-up pipe.
    private func waitForWake(_ delay: Duration) {
        wakeup.wait(timeout: max(delay, .zero))
    }
}
