/// Why the relay cannot run.
package enum RelayError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The listening address is malformed or cannot be bound.
    case listen(String)

    package var description: String {
        switch self {
        case .listen(let reason): "livelocd-relay: cannot listen on \(reason)"
        }
    }
}
