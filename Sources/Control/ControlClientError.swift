import SystemIO

/// Why `liveloc` could not talk to the daemon, as one line.
package enum ControlClientError: Error, CustomStringConvertible, Equatable {
    /// How far a call got before its deadline.
    package enum Stage: Sendable, Equatable {
        case connecting
        case sending
        case waitingForReply
    }

    /// Nothing listens on the socket (ENOENT, ECONNREFUSED).
    case notRunning(SystemError)
    /// The socket's permissions keep the caller out (EACCES, EPERM).
    case notAllowed(SystemError)
    /// The deadline passed: the daemon did not accept, read or answer in time.
    case noAnswer(path: String, timeout: Duration, stage: Stage)
    /// Any other failure of a socket call.
    case failed(SystemError)
    /// What came back is not a reply of this protocol.
    case badReply(path: String, reason: String)

    package var description: String {
        switch self {
        case .notRunning(let error):
            "livelocd is not running (\(error))"
        case .notAllowed(let error):
            "not allowed to control livelocd (\(error)); are you in its control group?"
        case .noAnswer(let path, let timeout, let stage):
            switch stage {
            case .connecting: "livelocd did not accept a connection on \(path) within \(timeout.shortText) (its backlog is full: is it hung?)"
            case .sending: "livelocd did not read the request on \(path) within \(timeout.shortText)"
            case .waitingForReply: "livelocd did not answer on \(path) within \(timeout.shortText)"
            }
        case .failed(let error):
            "\(error)"
        case .badReply(let path, let reason):
            "no valid reply from livelocd on \(path): \(reason)"
        }
    }
}
