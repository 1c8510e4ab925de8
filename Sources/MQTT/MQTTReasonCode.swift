import Delivery

/// What the broker's reason codes mean for the destination: the text shown in `liveloc status` and
/// the log for a refused connection, and the delivery outcome of a refused publish. Codes from the
/// MQTT 5.0 specification (2.4 "Reason Code", 3.2.2.2 CONNACK, 3.4.2.1 PUBACK) and, for MQTT 3.1.1,
/// the CONNACK return codes (3.2.2.3).
package enum MQTTReasonCode {
    /// The CONNACK's refusal as a line for people: its category first (`not authorized`, `refused`),
    /// then the code's meaning and number, e.g. `not authorized: bad user name or password (MQTT 5
    /// reason code 134)`.
    package static func connectRefusal(_ code: Int, protocolVersion: MQTTProtocolVersion) -> String {
        switch protocolVersion {
        case .v311:
            let (meaning, authorization): (String, Bool) = switch code {
            case 1: ("unacceptable protocol version", false)
            case 2: ("client identifier rejected", false)
            case 3: ("server unavailable", false)
            case 4: ("bad user name or password", true)
            case 5: ("not authorized", true)
            default: ("unknown return code", false)
            }
            return (authorization ? "not authorized: " : "refused: ") + "\(meaning) (MQTT 3.1.1 CONNACK return code \(code))"
        case .v5:
            let authorization = [0x86, 0x87, 0x8A, 0x8C].contains(code)
            return (authorization ? "not authorized: " : "refused: ") + "\(meaning(code)) (MQTT 5 reason code \(code))"
        }
    }

    /// What to do with an event whose publish the broker answered with `code` (PUBACK, PUBREC):
    /// nil for success (below 128, "no matching subscribers" included); `disabled` when the broker
    /// will not take anything on this topic from this client (not authorized, topic name invalid);
    /// `refused` for a payload it will never take (too large, bad format), except for a share's end,
    /// which is never dropped and is retried; `retry` for the rest (quota exceeded, server busy, …).
    package static func publishOutcome(_ code: Int, isFinal: Bool) -> DeliveryOutcome? {
        guard code >= 0x80 else { return nil }
        let reason = "broker refused the publish: \(meaning(code)) (MQTT 5 reason code \(code))"
        switch code {
        case 0x87, 0x90:
            return .disabled(reason: reason)
        case 0x95, 0x99:
            return isFinal ? .retry(reason: reason + "; a share's end is never dropped") : .refused(reason: reason)
        default:
            return .retry(reason: reason)
        }
    }

    /// An MQTT 5 reason code's name in the specification, in lower case.
    package static func meaning(_ code: Int) -> String {
        switch code {
        case 0x00: "success"
        case 0x10: "no matching subscribers"
        case 0x80: "unspecified error"
        case 0x81: "malformed packet"
        case 0x82: "protocol error"
        case 0x83: "implementation specific error"
        case 0x84: "unsupported protocol version"
        case 0x85: "client identifier not valid"
        case 0x86: "bad user name or password"
        case 0x87: "not authorized"
        case 0x88: "server unavailable"
        case 0x89: "server busy"
        case 0x8A: "banned"
        case 0x8B: "server shutting down"
        case 0x8C: "bad authentication method"
        case 0x8D: "keep alive timeout"
        case 0x8E: "session taken over"
        case 0x90: "topic name invalid"
        case 0x91: "packet identifier in use"
        case 0x93: "receive maximum exceeded"
        case 0x95: "packet too large"
        case 0x96: "message rate too high"
        case 0x97: "quota exceeded"
        case 0x98: "administrative action"
        case 0x99: "payload format invalid"
        case 0x9A: "retain not supported"
        case 0x9B: "QoS not supported"
        case 0x9C: "use another server"
        case 0x9D: "server moved"
        case 0x9F: "connection rate exceeded"
        default: "reason code \(code)"
        }
    }
}
