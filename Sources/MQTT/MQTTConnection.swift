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
/// only queues the packet and wakes the loop. All shared state, the client handle included, is
/// behind one lock; the handle is destroyed only by the loop thread, after taking it out of the state.
package final class MQTTConnection: Sendable {
    package let configuration: MQTTConfiguration
    package let formatter: MQTTFormatter
    private let log: Logger
    private let state = Locked(State())
    /// The commands received (`mqtt.commands`), in order, for one consumer (the daemon).
    package let commands: AsyncStream<MQTTCommand>
    private let commandSink: AsyncStream<MQTTCommand>.Continuation
    /// Wakes the loop thread out of its backoff wait (`stop`).
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// The libmosquitto client, only touched under the lock or by the loop thread that owns it.
    private struct Handle: @unchecked Sendable {
        let raw: OpaquePointer
    }

    /// One event whose messages are out, waiting for their acknowledgements.
    private struct PendingEvent {
        var receipt: DeliveryReceipt
        var remaining = 0
        var isFinal: Bool
        var failure: DeliveryOutcome?
    }

    private struct State {
        var handle: Handle?
        /// CONNACK accepted on the current handle.
        var connected = false
        var link: LinkState = .disconnected(reason: "not started")
        var publishState = MQTTPublishState()
        var midToEvent: [Int32: Int] = [:]
        var pending: [Int: PendingEvent] = [:]
        var nextEventID = 0
        /// Events sent while no connection was up, in order.
        var held: [(event: QueuedEvent, receipt: DeliveryReceipt)] = []
        /// The disconnect messages' ids, acknowledged before a clean disconnect.
        var closingMids: Set<Int32> = []
        var stopping = false
        var threadRunning = false
        var threadDoneWaiters: [CheckedContinuation<Void, Never>] = []
        /// The current attempt's CONNACK refusal, when the broker refused.
        var connackRefusal: String?
        /// A DISCONNECT's reason code from the broker (MQTT 5), when it closed the connection.
        var serverDisconnect: Int?
        /// libmosquitto's error log lines during the current attempt (TLS failures are told there).
        var libraryErrors: [String] = []
        var lastLoggedLink: String?
        var acknowledged = 0
        var attempts = 0
        /// Whether the next failed attempt reports the waiting events `retry` (once per outage).
        var failHeldOnFailure = true
        /// When the first connection attempt was made (OwnTracks' last will says so).
        var firstAttemptAt: Timestamp?
        /// When the last update was formatted (Home Assistant's "Minutes left" counts down from it).
        var countdownSince: ContinuousClock.Instant?
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
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemError("pipe") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.configuration = configuration
        formatter = MQTTFormatter(configuration: configuration)
        self.log = log
        // Commands are few (a person's button); a flood beyond this is dropped, the newest kept.
        (commands, commandSink) = AsyncStream.makeStream(of: MQTTCommand.self, bufferingPolicy: .bufferingNewest(32))
    }

    deinit {
        commandSink.finish()
        close(wakeRead)
        close(wakeWrite)
    }

    /// Publishes the reply to `command` (QoS 1, not retained): on its response topic with its
    /// correlation data when it named one (MQTT 5), else on `<prefix>/<device>/command/reply`.
    /// Returns why it could not be queued (no connection, a response topic libmosquitto refuses).
    @discardableResult
    package func reply(_ payload: [UInt8], to command: MQTTCommand) -> String? {
        let topic = command.responseTopic ?? formatter.topics.commandReply
        return state.withLock { state -> String? in
            guard let handle = state.handle, state.connected else { return "not connected" }
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
    package var link: LinkState { state.withLock { $0.link } }

    /// Events acknowledged by the broker since start.
    package var acknowledgedCount: Int { state.withLock { $0.acknowledged } }

    /// Connection attempts made since start.
    package var attemptCount: Int { state.withLock { $0.attempts } }

    /// Formats `event` and publishes its messages now (connected) or at the next connection.
    package func send(_ event: QueuedEvent) -> DeliveryReceipt {
        let receipt = DeliveryReceipt()
        let immediate = state.withLock { state -> DeliveryOutcome? in
            if state.stopping { return .retry(reason: "MQTT destination stopping") }
            guard let handle = state.handle, state.connected else {
                state.held.append((event, receipt))
                return nil
            }
            return publish(event, receipt: receipt, on: handle, state: &state)
        }
        if let immediate { receipt.fulfil(immediate) }
        return receipt
    }

    /// Starts the loop thread, keeps the connection until the calling task is cancelled, then
    /// publishes the format's disconnect messages (Home Assistant: `offline`), disconnects cleanly and
    /// returns (within about 5 s whatever the broker does). It may run again after it returned.
    /// - Throws: `MQTTConnectionError.alreadyRunning`, or `SystemError` when the thread cannot start.
    package func run() async throws {
        let start = state.withLock { state -> Bool in
            guard !state.threadRunning else { return false }
            state.threadRunning = true
            state.stopping = false
            return true
        }
        guard start else { throw MQTTConnectionError.alreadyRunning }
        do {
            try startDetachedThread(name: "livelocd-mqtt") { self.loop() }
        } catch {
            state.withLock { $0.threadRunning = false }
            throw error
        }
        // No timer while connected: `Task.sleep` would wake the process every second.
        await waitUntilCancelled()
        stop()
        await waitForThread(atMost: .seconds(5))
    }

    /// Asks the loop thread to publish the disconnect messages, disconnect and end.
    package func stop() {
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            guard let handle = state.handle, state.connected else { return }
            for message in formatter.disconnectMessages(state: &state.publishState) {
                var mid: Int32 = 0
                if publishMessage(message, on: handle, mid: &mid) == MOSQ_ERR_SUCCESS.rawValue {
                    state.closingMids.insert(mid)
                }
            }
            // Nothing to publish first: disconnect now, which also wakes the loop at once (a
            // packet queued from another thread does).
            if state.closingMids.isEmpty { disconnect(handle) }
        }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func waitForThread(atMost limit: Duration) async {
        // An unstructured task: not cancelled with the caller, so the bound holds.
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.resumeThreadWaiters()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard state.threadRunning else { return true }
                state.threadDoneWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        timer.cancel()
    }

    private func resumeThreadWaiters() {
        let waiters = state.withLock { state in
            defer { state.threadDoneWaiters.removeAll() }
            return state.threadDoneWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: - Publishing (under the lock)

    /// Publishes `event`'s messages; an outcome when it is known at once (nothing to publish, or
    /// libmosquitto refused the publish).
    private func publish(_ event: QueuedEvent, receipt: DeliveryReceipt, on handle: Handle,
                         state: inout State) -> DeliveryOutcome? {
        let messages = formatter.messages(for: event, state: &state.publishState)
        if case .updated = event.event { state.countdownSince = .now }
        guard !messages.isEmpty else {
            state.acknowledged += 1
            return .delivered()
        }
        let id = state.nextEventID
        state.nextEventID += 1
        var pending = PendingEvent(receipt: receipt, isFinal: event.event.isFinal)
        var mids: [Int32] = []
        for message in messages {
            var mid: Int32 = 0
            let code = publishMessage(message, on: handle, mid: &mid)
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                for mid in mids { state.midToEvent[mid] = nil }
                return .retry(reason: "MQTT publish on \(message.topic) failed: \(Self.libraryMessage(code))")
            }
            mids.append(mid)
            pending.remaining += 1
        }
        for mid in mids { state.midToEvent[mid] = id }
        state.pending[id] = pending
        return nil
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

    fileprivate func connected(code: Int32) {
        guard code == 0 else {
            state.withLock {
                $0.connackRefusal = MQTTReasonCode.connectRefusal(Int(code), protocolVersion: configuration.protocolVersion)
            }
            return
        }
        let immediate = state.withLock { state -> [(DeliveryReceipt, DeliveryOutcome)] in
            guard let handle = state.handle else { return [] }
            state.connected = true
            state.link = .connected
            state.failHeldOnFailure = true
            for message in formatter.connectMessages(state: &state.publishState) {
                var mid: Int32 = 0
                _ = publishMessage(message, on: handle, mid: &mid)
            }
            if configuration.commands { subscribeToCommands(on: handle) }
            let held = state.held
            state.held.removeAll()
            var immediate: [(DeliveryReceipt, DeliveryOutcome)] = []
            for (event, receipt) in held {
                if let outcome = publish(event, receipt: receipt, on: handle, state: &state) {
                    immediate.append((receipt, outcome))
                }
            }
            return immediate
        }
        for (receipt, outcome) in immediate { receipt.fulfil(outcome) }
        logLink(.connected, retryIn: nil)
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
        var command = MQTTCommand(payload: payload, packetID: raw.mid, retained: raw.retain)
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
        commandSink.yield(command)
    }

    fileprivate func published(mid: Int32, code: Int32) {
        let done = state.withLock { state -> (DeliveryReceipt, DeliveryOutcome)? in
            if state.closingMids.remove(mid) != nil { return nil }
            guard let id = state.midToEvent.removeValue(forKey: mid), var pending = state.pending[id] else { return nil }
            pending.remaining -= 1
            if pending.failure == nil, let failure = MQTTReasonCode.publishOutcome(Int(code), isFinal: pending.isFinal) {
                pending.failure = failure
            }
            guard pending.remaining == 0 else {
                state.pending[id] = pending
                return nil
            }
            state.pending[id] = nil
            if pending.failure == nil { state.acknowledged += 1 }
            return (pending.receipt, pending.failure ?? .delivered())
        }
        if let (receipt, outcome) = done { receipt.fulfil(outcome) }
    }

    fileprivate func disconnected(code: Int32) {
        // 128 and above: the broker's own DISCONNECT reason (MQTT 5); below, libmosquitto's error.
        if code >= 0x80 { state.withLock { $0.serverDisconnect = Int(code) } }
    }

    fileprivate func libraryLog(level: Int32, message: String) {
        guard level == MOSQ_LOG_ERR else { return }
        state.withLock { state in
            if state.libraryErrors.count < 8 { state.libraryErrors.append(message) }
        }
    }

    // MARK: - The loop thread

    /// How one connection (or attempt) ended.
    private struct Ending {
        var reason: String
        /// The broker had accepted the connection.
        var wasConnected: Bool
    }

    private func loop() {
        var failures = 0
        // Until the first attempt ends; after that the last failure stays shown while retrying.
        state.withLock { $0.link = .connecting }
        logLink(.connecting, retryIn: nil)
        while !isStopping {
            let ending = connectAndServe()
            if isStopping { break }
            failures = ending.wasConnected ? 1 : failures + 1
            let delay = configuration.reconnect.delay(afterFailures: failures, retryAfter: nil)
            let link: LinkState = ending.wasConnected ? .disconnected(reason: ending.reason) : .refused(reason: ending.reason)
            let failHeld = state.withLock { state -> Bool in
                state.link = link
                defer { state.failHeldOnFailure = false }
                return state.failHeldOnFailure
            }
            failOutstanding(.retry(reason: "MQTT: \(ending.reason)"), includingHeld: failHeld)
            logLink(link, retryIn: delay)
            waitForWake(delay)
        }
        failOutstanding(.retry(reason: "MQTT destination stopped"), includingHeld: true)
        let waiters = state.withLock { state in
            state.threadRunning = false
            state.link = .disconnected(reason: "stopped")
            defer { state.threadDoneWaiters.removeAll() }
            return state.threadDoneWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Reports `outcome` for every event published and not acknowledged, and for those waiting for
    /// a connection when `includingHeld`.
    private func failOutstanding(_ outcome: DeliveryOutcome, includingHeld: Bool) {
        let receipts = state.withLock { state -> [DeliveryReceipt] in
            var receipts = state.pending.sorted { $0.key < $1.key }.map(\.value.receipt)
            state.pending.removeAll()
            state.midToEvent.removeAll()
            if includingHeld {
                receipts += state.held.map(\.receipt)
                state.held.removeAll()
            }
            return receipts
        }
        for receipt in receipts { receipt.fulfil(outcome) }
    }

    /// One connection attempt and, when it succeeds, the connection's life.
    private func connectAndServe() -> Ending {
        let handle: Handle
        do {
            handle = try makeClient()
        } catch {
            return Ending(reason: "\(error)", wasConnected: false)
        }
        state.withLock { state in
            state.handle = handle
            state.connected = false
            state.connackRefusal = nil
            state.serverDisconnect = nil
            state.libraryErrors.removeAll()
            state.closingMids.removeAll()
            state.attempts += 1
        }
        let ending = serve(handle)
        state.withLock { state in
            state.handle = nil
            state.connected = false
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
            code = cmosquitto_loop(handle.raw, 1000, 1)
            let loopErrno = cmosquitto_errno()
            let (connected, stopping) = state.withLock { ($0.connected, $0.stopping) }
            if stopping {
                closeCleanly(handle, connected: connected)
                return Ending(reason: "stopped", wasConnected: connected)
            }
            if code != MOSQ_ERR_SUCCESS.rawValue {
                return Ending(reason: describeFailure(code, errno: loopErrno, connected: connected), wasConnected: connected)
            }
            if connected && formatter.format == .homeassistant { sayCountdown(on: handle) }
            if !connected && clock.now > deadline {
                return Ending(reason: "unreachable: no CONNACK from \(broker) within \(configuration.connectTimeout)",
                              wasConnected: false)
            }
        }
    }

    /// Home Assistant's share state again when its minutes left went down since it was said.
    private func sayCountdown(on handle: Handle) {
        state.withLock { state in
            guard let since = state.countdownSince,
                  let message = formatter.homeAssistantCountdown(elapsed: .now - since, state: &state.publishState) else { return }
            var mid: Int32 = 0
            _ = publishMessage(message, on: handle, mid: &mid)
        }
    }

    /// Waits (at most 2 s) for the disconnect messages' acknowledgements, then sends DISCONNECT.
    private func closeCleanly(_ handle: Handle, connected: Bool) {
        guard connected else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(2)
        while !state.withLock({ $0.closingMids.isEmpty }) && clock.now < deadline {
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

    private var keepaliveSeconds: Int32 {
        Int32(clamping: max(configuration.keepalive.components.seconds, 5))
    }

    /// A new libmosquitto client with every option, the will and the callbacks set.
    private func makeClient() throws(MQTTConnectionError) -> Handle {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let raw = cmosquitto_new(configuration.clientID, false, context) else {
            throw .library("mosquitto_new failed (out of memory, or an invalid client id)")
        }
        let handle = Handle(raw: raw)
        do {
            try configure(handle)
        } catch {
            cmosquitto_destroy(raw)
            throw error
        }
        return handle
    }

    private func configure(_ handle: Handle) throws(MQTTConnectionError) {
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
        let firstAttemptAt = state.withLock { state in
            if state.firstAttemptAt == nil { state.firstAttemptAt = WallClock().now }
            return state.firstAttemptAt!
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
        cmosquitto_connect_v5_callback_set(raw) { _, context, code, _, _ in
            MQTTConnection.from(context)?.connected(code: code)
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
        let (refusal, server, libraryErrors) = state.withLock { ($0.connackRefusal, $0.serverDisconnect, $0.libraryErrors) }
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

    /// Logs `link` when it differs from what was logged last (one line per change, not per attempt).
    private func logLink(_ link: LinkState, retryIn delay: Duration?) {
        let (level, text): (LogLevel, String) = switch link {
        case .connecting: (.info, "connecting to \(configuration.broker)")
        case .connected: (.notice, "connected to \(configuration.broker) as \(configuration.clientID)")
        case .refused(let reason): (.warning, "connection refused: \(reason)")
        case .disconnected(let reason): (.warning, "disconnected: \(reason)")
        }
        let changed = state.withLock { state -> Bool in
            guard state.lastLoggedLink != text else { return false }
            state.lastLoggedLink = text
            return true
        }
        guard changed else { return }
        let retry = delay.map { "; retrying in \($0.shortText) with backoff" } ?? ""
        log.log(level, "mqtt: \(text)\(retry)")
    }

    /// Sleeps `delay`, or less when `stop` writes to the wake-up pipe.
    private func waitForWake(_ delay: Duration) {
        var descriptor = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: max(delay.wholeMilliseconds, 0))
        _ = poll(&descriptor, 1, milliseconds)
        var scratch = [UInt8](repeating: 0, count: 16)
        while read(wakeRead, &scratch, scratch.count) > 0 {}
    }
}
