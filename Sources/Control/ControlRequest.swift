import JSONCoding
import LiveLocation

/// One request of the control protocol, checked: what the daemon is asked to do.
package enum ControlRequest: Sendable, Equatable {
    /// Start a share for this long (an active share is superseded), with the caller's id for it
    /// (nil: a new random id).
    case start(ShareDuration, id: ShareID? = nil)
    /// Stop the active share, if any.
    case stop
    /// Report the source, the active share and the destinations.
    case status
    /// One page of a share's track (nil: the share recorded last), after the page ending at `after`
    /// (0 for the first).
    case track(share: ShareID?, after: Int64)
    /// Move the active share's end this much later, never beyond `ShareDuration.longest` from now.
    case extend(ShareDuration)

    package var operation: ControlOperation {
        switch self {
        case .start: .start
        case .stop: .stop
        case .status: .status
        case .track: .track
        case .extend: .extend
        }
    }

    /// The request as it travels: `{"duration":"15m","op":"start","v":1}` and a newline.
    package var line: [UInt8] {
        var wire = ControlRequestLine(v: ControlProtocol.version, op: operation.rawValue, duration: nil)
        if case .start(let duration, let id) = self {
            wire.duration = duration.rawValue
            wire.id = id?.rawValue
        }
        if case .extend(let duration) = self { wire.duration = duration.rawValue }
        if case .track(let share, let after) = self {
            wire.share = share?.rawValue
            wire.after = after == 0 ? nil : after
        }
        var bytes = (try? JSON.encode(wire)) ?? []
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads a request line (without its newline): the request, or the failure to answer with
    /// (`bad-request`, `unsupported-version`, `unknown-op`, `bad-duration`).
    package static func parse(_ line: [UInt8]) -> Result<ControlRequest, ControlFailure> {
        ControlRequestLine.decode(line, example: #"{"v":1,"op":"status"}"#).flatMap(check)
    }

    /// Reads a command that came over MQTT (`<prefix>/<device>/command`): a request of this protocol
    /// whose `v` may be left out, and whose `op` is `start`, `stop` or `extend` (anything else: `unknown-op`),
    /// with the same checks and failures as a request line, at most as long (`too-large`).
    package static func parseRemoteCommand(_ payload: [UInt8]) -> Result<ControlRequest, ControlFailure> {
        guard payload.count <= ControlProtocol.maximumRequestBytes else {
            return .failure(ControlFailure(.tooLarge, "command longer than \(ControlProtocol.maximumRequestBytes) bytes"))
        }
        let remoteOperations: [ControlOperation] = [.start, .stop, .extend]
        var wire: ControlRequestLine
        switch ControlRequestLine.decode(payload, example: #"{"op":"start","duration":"1h"}"#, operations: remoteOperations) {
        case .success(let line): wire = line
        case .failure(let failure): return .failure(failure)
        }
        if wire.v == nil { wire.v = ControlProtocol.version }
        guard let op = wire.op.flatMap(ControlOperation.init(rawValue:)), remoteOperations.contains(op) else {
            return .failure(ControlFailure(.unknownOperation, "op must be start, stop or extend"))
        }
        return check(wire)
    }

    private static func check(_ wire: ControlRequestLine) -> Result<ControlRequest, ControlFailure> {
        guard wire.v == ControlProtocol.version else {
            return .failure(ControlFailure(.unsupportedVersion,
                                           "this daemon speaks version \(ControlProtocol.version) (\"v\":\(ControlProtocol.version))"))
        }
        switch wire.op.flatMap(ControlOperation.init(rawValue:)) {
        case .start:
            guard let duration = wire.duration.flatMap(ShareDuration.init(argument:)) else {
                return .failure(ControlFailure(.badDuration, "duration must be 15m, 1h or 8h"))
            }
            if let id = wire.id, !ShareID.isValidCallerID(id) {
                return .failure(ControlFailure(.badRequest, "id must be \(ShareID.callerIDRule)"))
            }
            return .success(.start(duration, id: wire.id.map(ShareID.init(rawValue:))))
        case .stop:
            return .success(.stop)
        case .status:
            return .success(.status)
        case .track:
            if let share = wire.share, !ShareID.isWellFormed(share), !ShareID.isValidCallerID(share) {
                return .failure(ControlFailure(.badRequest, "share must be a share id (\(ShareID.callerIDRule))"))
            }
            guard (wire.after ?? 0) >= 0 else { return .failure(ControlFailure(.badRequest, "after must be >= 0")) }
            return .success(.track(share: wire.share.map(ShareID.init(rawValue:)), after: wire.after ?? 0))
        case .extend:
            guard let duration = wire.duration.flatMap(ShareDuration.init(argument:)) else {
                return .failure(ControlFailure(.badDuration, "duration must be 15m, 1h or 8h"))
            }
            return .success(.extend(duration))
        case nil:
            return .failure(ControlFailure(.unknownOperation, "op must be start, stop, status, track or extend"))
        }
    }
}
