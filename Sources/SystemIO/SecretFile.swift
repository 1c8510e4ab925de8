#if canImport(Glibc)
import Glibc
#endif

/// Why a secret file (a webhook's signing keys, an MQTT password, a bot token) cannot be used.
/// Never shows the file's content.
public enum SecretFileError: Error, CustomStringConvertible, Equatable, Sendable {
    /// It cannot be opened or read.
    case unreadable(SystemError)
    /// Its group or others have access to it (any of the mode's 0077 bits): whoever can read it can
    /// impersonate us, whoever can write it can replace our keys.
    case exposed(path: String, mode: mode_t)
    /// It is not a regular file (a directory, a FIFO, a device).
    case notARegularFile(path: String)
    /// It is larger than any secret should be.
    case tooLarge(path: String, limit: Int)

    public var description: String {
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

/// Reads a file that holds a secret, refusing it unless only its owner may read it (no group or
/// other read, write or execute bit: mode 0600 or 0400, as systemd's `LoadCredential=` makes them).
/// The permission is checked on the descriptor read from (`fstat`), so a file swapped after the
/// check is never read. One helper for every secret: the webhook's keys, the MQTT password, the
/// Telegram bot token.
/// - Parameter limit: the largest file accepted, bytes.
/// - Throws: `SecretFileError` naming the file.
package func readSecretFile(_ path: String, limit: Int = 64 << 10) throws(SecretFileError) -> [UInt8] {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
    guard fd >= 0 else { throw .unreadable(SystemError("open", target: path)) }
    let descriptor = FileDescriptor(rawValue: fd)
    defer { descriptor.close() }
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw .unreadable(SystemError("fstat", target: path)) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path: path) }
    guard info.st_mode & 0o077 == 0 else { throw .exposed(path: path, mode: info.st_mode) }
    do {
        return try descriptor.readToEnd(limit: limit, path: path)
    } catch where error.errno == EFBIG {
        throw .tooLarge(path: path, limit: limit)
    } catch {
        throw .unreadable(error)
    }
}
