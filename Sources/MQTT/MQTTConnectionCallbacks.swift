#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Delivery
import SystemIO

/// What libmosquitto calls, on the loop thread, inside `mosquitto_loop`: each callback is an event
/// for the machine (or a command for the consumer of `takeCommands`).
extension MQTTConnection {
    /// - Parameter flags: CONNACK's acknowledge flags; bit 0 is "session present".
    func connected(code: Int32, flags: Int32) {
        let after = client.withLock { handle in
            perform(machine.withLock { $0.connackReceived(code: Int(code), sessionPresent: flags & 1 != 0, now: .now) }, on: handle)
        }
        perform(after)
    }

    func received(_ message: UnsafePointer<mosquitto_message>, properties: OpaquePointer?) {
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

    func published(mid: Int32, code: Int32) {
        // Under `client`'s lock: a publish from another thread has recorded its ids before.
        let action = client.withLock { _ in machine.withLock { $0.acknowledged(mid: mid, code: Int(code)) } }
        perform(action)
    }

    func disconnected(code: Int32) {
        machine.withLock { $0.disconnectReceived(code: Int(code)) }
    }

    func libraryLog(level: Int32, message: String) {
        guard level == MOSQ_LOG_ERR else { return }
        machine.withLock { $0.libraryErrorLogged(message) }
    }

    static func from(_ context: UnsafeMutableRawPointer?) -> MQTTConnection? {
        context.map { Unmanaged<MQTTConnection>.fromOpaque($0).takeUnretainedValue() }
    }
}
