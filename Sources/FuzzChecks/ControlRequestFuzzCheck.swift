import Control
import JSONCoding
import LiveLocation

/// What the control socket's request decoder must hold on any line whatever: it does not crash; a
/// JSON text it parses is written back as text that parses to the same value; and a request it
/// accepts survives encoding and decoding again unchanged (what the client sends is what the
/// daemon reads). The same line as a command over MQTT (`parseRemoteCommand`): only a start or a
/// stop is ever taken, and it is the request the socket reads from it.
package enum ControlRequestFuzzCheck {
    package static func violations(in input: [UInt8]) -> [FuzzViolation] {
        if let value = try? JSONValue(parsing: input) {
            let written = value.bytes
            guard let again = try? JSONValue(parsing: written), again == value else {
                return [FuzzViolation("parsed JSON written back parses to the same value", String(decoding: written, as: UTF8.self))]
            }
        }
        let remote = ControlRequest.parseRemoteCommand(input)
        if case .success(let command) = remote {
            switch command {
            case .start, .stop, .extend: break
            default: return [FuzzViolation("a command over MQTT is only a start, a stop or an extend", "\(command)")]
            }
            guard case .success(let again) = ControlRequest.parse(Array(command.line.dropLast())), again == command else {
                return [FuzzViolation("a command over MQTT is the request the socket reads from its line", "\(command)")]
            }
        }
        guard case .success(let request) = ControlRequest.parse(input) else { return [] }
        switch request {
        case .start, .extend, .stop:
            // All three within the socket's line limit (a `where` here would bind to `.stop` alone).
            guard input.count <= ControlProtocol.maximumRequestBytes else { break }
            guard case .success(let command) = remote, command == request else {
                return [FuzzViolation("a start, extend or stop the socket takes is taken over MQTT too", "\(request) -> \(remote)")]
            }
        default: break
        }
        let encoded = request.line
        guard encoded.last == UInt8(ascii: "\n"), case .success(let again) = ControlRequest.parse(Array(encoded.dropLast())), again == request else {
            return [FuzzViolation("an accepted request decodes again to itself", "\(request) -> \(String(decoding: encoded, as: UTF8.self))")]
        }
        return []
    }
}
