import CMosquitto
import Delivery

/// Performing the state machine's actions: what needs the libmosquitto client runs under `client`'s
/// lock (publish, subscribe, disconnect) and feeds the message ids back to the machine; the rest
/// (receipts, log lines, waking the loop thread) runs after the lock is released.
extension MQTTConnection {
    /// Performs what needs the client (publish, subscribe, disconnect), under `client`'s lock held
    /// by the caller, feeding the message ids back to the machine; returns what remains to do
    /// (fulfil receipts, log, wake the loop thread) once the lock is released.
    func perform(_ action: MQTTConnectionStateMachine.Action, on handle: Handle?) -> [MQTTConnectionStateMachine.Action] {
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
    func perform(_ actions: [MQTTConnectionStateMachine.Action]) {
        for action in actions { perform(action) }
    }

    func perform(_ action: MQTTConnectionStateMachine.Action) {
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
    func publish(_ publication: MQTTConnectionStateMachine.Publication, on handle: Handle) -> MQTTConnectionStateMachine.Action {
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

    /// Subscribes to the command topic, QoS 1 (again on every connection: the session may be new).
    /// MQTT 5: "retain as published", so that a retained command shows as one and is not taken.
    func subscribeToCommands(on handle: Handle) {
        var mid: Int32 = 0
        let options = configuration.protocolVersion == .v5 ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
        let code = cmosquitto_subscribe_v5(handle.raw, &mid, formatter.topics.command, Int32(MQTTQoS.atLeastOnce.rawValue),
                                          options, nil)
        if code != MOSQ_ERR_SUCCESS.rawValue {
            log.error("mqtt: cannot subscribe to \(formatter.topics.command): \(Self.libraryMessage(code))")
        }
    }
}
