/// A setting that cannot be used, in the words of its key: livelocd names the key (and the file and
/// line), `liveloc share` the option that sets it (`SettingDescription.shareOption`).
package enum SettingError: Error, Equatable, Sendable, CustomStringConvertible {
    case badValue(key: String, value: String, expected: String)
    /// `key` is needed because `because` (another key) is set; `hint` says where else it may come from.
    case missingKey(String, because: String, hint: String? = nil)
    case unknownKey(String)

    package var description: String {
        switch self {
        case .badValue(let key, let value, let expected): "invalid value '\(value)' for '\(key)': expected \(expected)"
        case .missingKey(let key, let because, let hint): "\(because) needs '\(key)'\(hint.map { " " + $0 } ?? "")"
        case .unknownKey(let key): "unknown key '\(key)'"
        }
    }
}
