/// An `mqtt.*` setting that cannot be used.
package enum MQTTSettingError: Error, Equatable, Sendable, CustomStringConvertible {
    case badValue(key: String, value: String, expected: String)
    case missingKey(String, because: String)
    case unknownKey(String)

    package var description: String {
        switch self {
        case .badValue(let key, let value, let expected): "invalid value '\(value)' for '\(key)': expected \(expected)"
        case .missingKey(let key, let because): "missing '\(key)' (needed for \(because))"
        case .unknownKey(let key): "unknown key '\(key)'"
        }
    }
}
