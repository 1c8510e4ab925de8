import Control
import JSONCoding
import LiveLocation

/// What the control socket's request decoder must hold on any line whatever: it does not crash; a
/// JSON text it parses is written back as text that parses to the same value; and a request it
/// accepts survives encoding and decoding again unchanged (what the client sends is what the
/// daemon reads).
public enum ControlRequestFuzzCheck {
    public static func violations(in input: [UInt8]) -> [FuzzViolation] {
        if let value = try? JSONValue(parsing: input) {
            let written = value.bytes
            guard let again = try? JSONValue(parsing: written), again == value else {
                return [FuzzViolation("parsed JSON written back parses to the same value", String(decoding: written, as: UTF8.self))]
            }
        }
        guard case .success(let request) = ControlRequest.parse(input) else { return [] }
        let encoded = request.line
        guard encoded.last == UInt8(ascii: "\n"), case .success(let again) = ControlRequest.parse(Array(encoded.dropLast())), again == request else {
            return [FuzzViolation("an accepted request decodes again to itself", "\(request) -> \(String(decoding: encoded, as: UTF8.self))")]
        }
        return []
    }
}
