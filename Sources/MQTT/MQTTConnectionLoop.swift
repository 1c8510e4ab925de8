#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import LiveLocation
import SystemIO

/// The loop thread: one connection attempt after another, each with a new client, the backoff
/// between them, a clean close when stopped, and why each attempt ended.
extension MQTTConnection {
    /// How one connection (or attempt) ended.
    private struct Ending {
        var reason: String
        /// The broker had accepted the connection.
        var wasConnected: Bool
    }

    /// The loop thread: one attempt after another, with the backoff between, until stopped.
    func loop() {
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
    func disconnect(_ handle: Handle) {
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

    /// Sleeps `delay`, or less when `stop` writes to the wake-up pipe.
    private func waitForWake(_ delay: Duration) {
        wakeup.wait(timeout: max(delay, .zero))
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
}
