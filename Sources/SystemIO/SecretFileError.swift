#if canImport(Glibc)
import Glibc
#endif

/// Why a secret file (a webhook's signing keys, an MQTT password, a bot token) cannot be used.
/// Never shows the file's content.
package enum SecretFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// It cannot be opened or read.
    case unreadable(SystemError)
    /// Its group or others have access to it (any of the mode's 0077 bits): whoever can read it can
    /// impersonate us, whoever can write it can replace our keys.
    case exposed(path: String, mode: mode_t)
    /// It is not a regular file (a directory, a FIFO, a device).
    case notARegularFile(path: String)
    /// It is larger than any secret should be.
    case tooLarge(path: String, limit: Int)

    package var description: String {
        switch self {
        case .unreadable(let error):
            "secret file: \(error)"
        case .exposed(let path, let mode):
            "secret file \(path) is open to its group or others (mode 0\(String(mode & 0o7777, radix: 8))); "
                + "only its owner may read it (chmod 600 \(path))"
        case .notARegularFile(let path):
            "secret file \(path) is not a regular file"
        case .tooLarge(let path, let limit):
            "secret file \(path) is larger than \(limit) bytes"
        }
    }
}
