import JSONCoding
import LiveLocation

/// One request of the control protocol, checked: what the daemon is asked to do.
package enum ControlRequest: Sendable, Equatable {
    /// Start a share for this long (an active share is superseded).
    case start(ShareDuration)
    /// Stop the active share, if any.
    case stop
    /// Report the source, the active share and the destinations.
    case status

    package var operation: ControlOperation {
        switch self {
        case .start: .start
        case .stop: .stop
        case .status: .status
        }
    }

    /// The request as it travels: `{"duration":"15m","op":"start","v":1}` and a newline.
    package var line: [UInt8] {
        var wire = ControlRequestLine(v: ControlProtocol.version, op: operation.rawValue, duration: nil)
        if case .start(let duration) = self { wire.duration = duration.rawValue }
        var bytes = (try? JSON.encode(wire)) ?? []
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads a request line (without its newline): the request, or the failure to answer with
    /// (`bad-request`, `unsupported-version`, `unknown-op`, `bad-duration`).
    package static func parse(_ line: [UInt8]) -> Result<ControlRequest, ControlFailure> {
        guard let wire = try? JSON.decode(ControlRequestLine.self, from: line) else {
            return .failure(ControlFailure(.badRequest, "expected one JSON object such as {\"v\":1,\"op\":\"status\"}"))
        }
        guard wire.v == ControlProtocol.version else {
            return .failure(ControlFailure(.unsupportedVersion,
                                           "this daemon speaks version \(ControlProtocol.version) (\"v\":\(ControlProtocol.version))"))
        }
        switch wire.op.flatMap(ControlOperation.init(rawValue:)) {
        case .start:
            guard let duration = wire.duration.flatMap(ShareDuration.init(argument:)) else {
                return .failure(ControlFailure(.badDuration, "duration must be 15m, 1h or 8h"))
            }
            return .success(.start(duration))
        case .stop:
            return .success(.stop)
        case .status:
            return .success(.status)
        case nil:
            return .failure(ControlFailure(.unknownOperation, "op must be start, stop or status"))
        }
    }
}
