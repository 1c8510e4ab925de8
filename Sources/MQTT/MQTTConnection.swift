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
///
/// The type's jobs, one file each: this file is its API (commands, replies, `send`, `run`, `stop`);
/// MQTTConnectionActions.swift performs the machine's actions on the client; MQTTConnectionCallbacks.swift
/// is what libmosquitto calls back; MQTTConnectionLoop.swift is the loop thread (attempts, the backoff,
/// why an attempt ended); MQTTClientSetup.swift makes a configured libmosquitto client.
package final class MQTTConnection: CommandChannel, Sendable {
    package let configuration: MQTTConfiguration
    package let formatter: MQTTFormatter
    let log: Logger
    let machine: Locked<MQTTConnectionStateMachine>
    /// The current attempt's libmosquitto client.
    let client = Locked<Handle?>(nil)
    /// The commands received (`mqtt.commands`), in order, for one consumer (`takeCommands`). The
    /// stream's own buffer is unbounded: `backlog` bounds what is in it.
    let commands: AsyncStream<RemoteCommand>
    let commandSink: AsyncStream<RemoteCommand>.Continuation
    let backlog: Locked<CommandBacklog>
    /// Answers a command refused (`takeCommands`), on the loop thread.
    let refuseCommand = Locked<(@Sendable (RemoteCommand, CommandBacklog.Refusal) -> Void)?>(nil)
    /// Wakes the loop thread out of its backoff wait (`stop`).
    let wakeup: WakeupPipe

    /// The libmosquitto client, only touched under `client`'s lock or by the loop thread that owns it.
    struct Handle: @unchecked Sendable {
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
}
