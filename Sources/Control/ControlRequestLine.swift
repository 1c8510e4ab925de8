import JSONCoding
import LiveLocation

/// A request line as JSON has it, before its fields are checked: every field optional, so that a
/// missing or wrong one gets its own error code.
package struct ControlRequestLine: Codable, Sendable, Equatable {
    package var v: Int?
    package var op: String?
    package var duration: String?
    /// `start`: the caller's id for the share; absent for a random one.
    package var id: String?
    /// `track`: the share's id; absent for the share recorded last.
    package var share: String?
    /// `track`: the `next` of the page before; absent for the first page.
    package var after: Int64?

    /// The fields, with the type each must have (for the reply that names a wrong one).
    package enum CodingKeys: String, CodingKey, Sendable {
        case v, op, duration, id, share, after

        /// What the field must be, for a person: `a string: "15m", "1h" or "8h"`.
        func expected(operations: [ControlOperation]) -> String {
            switch self {
            case .v: "the number \(ControlProtocol.version)"
            case .op: "a string: " + Self.alternatives(operations.map(\.rawValue))
            case .duration: "a string: " + Self.alternatives(ShareDuration.allCases.map(\.rawValue))
            case .id: "a string: the share's id, \(ShareID.callerIDRule)"
            case .share: "a string: a share's id"
            case .after: "a whole number: the \"next\" of the page before"
            }
        }

        /// `"a", "b" or "c"`.
        private static func alternatives(_ words: [String]) -> String {
            let quoted = words.map { "\"\($0)\"" }
            guard let last = quoted.last, quoted.count > 1 else { return quoted.joined() }
            return quoted.dropLast().joined(separator: ", ") + " or " + last
        }
    }

    package init(v: Int?, op: String?, duration: String?, share: String? = nil, after: Int64? = nil) {
        self.v = v
        self.op = op
        self.duration = duration
        self.share = share
        self.after = after
    }

    /// Reads a request (a control socket's line, an MQTT command's payload): the line, or a
    /// `bad-request` failure that says what is wrong: not one JSON object (`example` shows one), or
    /// which field has the wrong type, the type it must have and what came instead.
    /// - Parameter operations: the `op`s this reader takes, for the message about a wrong `op`.
    package static func decode(_ bytes: [UInt8], example: String,
                               operations: [ControlOperation] = ControlOperation.allCases) -> Result<ControlRequestLine, ControlFailure> {
        guard let value = try? JSONValue(parsing: bytes), case .object(let members) = value else {
            return .failure(ControlFailure(.badRequest, "expected one JSON object such as \(example)"))
        }
        do {
            return .success(try JSON.decode(ControlRequestLine.self, from: value))
        } catch {
            // A field of the wrong type (a number where a string goes, 1.5 for a whole number): the
            // decoder's coding path names it.
            let path: [any CodingKey] = switch error as? DecodingError {
            case .typeMismatch(_, let context), .dataCorrupted(let context), .valueNotFound(_, let context): context.codingPath
            default: []
            }
            guard let key = path.first.flatMap({ CodingKeys(stringValue: $0.stringValue) }) else {
                return .failure(ControlFailure(.badRequest, "expected one JSON object such as \(example)"))
            }
            let found = members[key.rawValue].map { " (found \($0.kindDescription))" } ?? ""
            return .failure(ControlFailure(.badRequest, "\"\(key.rawValue)\" must be \(key.expected(operations: operations))\(found)"))
        }
    }
}
