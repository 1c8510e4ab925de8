/// A setting of the MQTT destination that cannot be used; the daemon and `liveloc share` turn it into
/// one line naming their key or option.
package enum MQTTConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case badURL(String, reason: String)
    /// A device name, user or topic prefix that cannot be part of a topic.
    case badTopicPart(String, reason: String)
    /// The password file could not be read, or holds no password.
    case password(path: String, reason: String)

    package var description: String {
        switch self {
        case .badURL(let url, let reason): "invalid broker URL '\(url)': \(reason)"
        case .badTopicPart(let text, let reason): "'\(text)' \(reason)"
        case .password(let path, let reason): "cannot read the MQTT password from \(path): \(reason)"
        }
    }
}
