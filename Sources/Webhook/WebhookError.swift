import HTTP
import SystemIO

/// Why the webhook destination could not be set up or cannot go on, rendered as one line.
///
/// `outbox` errors are fatal: the outbox can no longer promise durability, so the caller should
/// exit (non-zero) rather than carry on without it.
public enum WebhookError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The endpoint URL is not an absolute `http://` or `https://` URL.
    case invalidURL(String)
    /// A line of the secret file is not a `whsec_<base64>` secret, or its key is too short. The
    /// secret itself is never part of the message.
    case invalidSecret(path: String, line: Int?, reason: String)
    /// The secret file cannot be read, or its group or others have access to it.
    case secretFile(SecretFileError)
    /// No secret was configured or the secret file holds none.
    case noSecret(path: String?)
    /// An SQLite call on the outbox failed (I/O, fsync, full disk, corrupt file, locked by another
    /// process): fatal.
    case outbox(path: String, operation: String, code: Int32, message: String)
    /// libcurl could not be initialised or configured.
    case http(operation: String, message: String)
    /// `run()` was called while the destination's delivery loop was already running.
    case alreadyRunning

    public var description: String {
        switch self {
        case .invalidURL(let url):
            "webhook URL \(HTTPURL.redacted(url)): not an absolute http:// or https:// URL with a host"
        case .invalidSecret(let path, let line, let reason):
            "webhook secret file \(path)\(line.map { " line \($0)" } ?? ""): \(reason)"
        case .secretFile(let error):
            "webhook \(error)"
        case .noSecret(let path):
            path.map { "webhook secret file \($0): no whsec_ secret in it" } ?? "webhook: no secret configured"
        case .outbox(let path, let operation, let code, let message):
            "webhook outbox \(path): \(operation): \(message) (SQLite code \(code))"
        case .http(let operation, let message):
            "webhook HTTP client: \(operation): \(message)"
        case .alreadyRunning:
            "webhook destination: run() is already running"
        }
    }
}
