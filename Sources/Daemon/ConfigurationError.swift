import Settings
import SystemIO

/// A configuration that cannot be used, rendered as one line naming the file, line and key, e.g.
/// `/etc/livelocd/livelocd.conf:7: unknown key 'gpsd.hots'`.
package enum ConfigurationError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Where in a file; nil for a command-line flag.
    package struct Location: Sendable, Equatable {
        package var file: String
        package var line: Int

        package init(file: String, line: Int) {
            self.file = file
            self.line = line
        }
    }

    case unreadable(SystemError)
    case syntax(text: String, at: Location)
    case unknownKey(key: String, at: Location?)
    case badValue(key: String, value: String, expected: String, at: Location?)
    case missingKey(key: String, because: String, hint: String? = nil)
    /// A line that is not UTF-8 text.
    case notUTF8(at: Location)
    /// A key set on two lines of one file (not one of `DaemonConfiguration.repeatableKeys`).
    case duplicateKey(key: String, firstLine: Int, at: Location)

    /// The key at fault, if any.
    package var key: String? {
        switch self {
        case .unknownKey(let key, _), .badValue(let key, _, _, _), .missingKey(let key, _, _), .duplicateKey(let key, _, _): key
        case .unreadable, .syntax, .notUTF8: nil
        }
    }

    func located(at location: Location) -> ConfigurationError {
        switch self {
        case .unknownKey(let key, _): .unknownKey(key: key, at: location)
        case .badValue(let key, let value, let expected, _): .badValue(key: key, value: value, expected: expected, at: location)
        default: self
        }
    }

    /// One line without control characters whatever the file held (`oneLineText`: a carriage
    /// return or an escape sequence in a line, a key or a value is shown escaped).
    package var description: String { oneLineText(composedDescription) }

    private var composedDescription: String {
        func prefix(_ location: Location?) -> String {
            location.map { "\($0.file):\($0.line): " } ?? ""
        }
        switch self {
        case .unreadable(let error):
            return "cannot read configuration: \(error)"
        case .syntax(let text, let location):
            return "\(prefix(location))expected 'key = value', found '\(text)'"
        case .unknownKey(let key, let location):
            return "\(prefix(location))unknown key '\(key)'"
        case .badValue(let key, let value, let expected, let location):
            return "\(prefix(location))invalid value '\(value)' for key '\(key)': expected \(expected)"
        case .missingKey(let key, let because, let hint):
            return "\(because) needs '\(key)'\(hint.map { " " + $0 } ?? "")"
        case .notUTF8(let location):
            return "\(prefix(location))not UTF-8 text"
        case .duplicateKey(let key, let firstLine, let location):
            return "\(prefix(location))key '\(key)' is already set at line \(firstLine) (lines \(firstLine) and \(location.line)); "
                + "a key may be set once"
        }
    }
}

extension ConfigurationError {
    /// A destination kind's `SettingError`, in the configuration's words (without a location).
    package init(_ error: SettingError) {
        switch error {
        case .badValue(let key, let value, let expected): self = .badValue(key: key, value: value, expected: expected, at: nil)
        case .missingKey(let key, let because, let hint): self = .missingKey(key: key, because: because, hint: hint)
        case .unknownKey(let key): self = .unknownKey(key: key, at: nil)
        }
    }
}
