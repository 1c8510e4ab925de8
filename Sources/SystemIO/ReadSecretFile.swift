#if canImport(Glibc)
import Glibc
#endif

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
    } catch where error.errno == .fileTooLarge {
        throw .tooLarge(path: path, limit: limit)
    } catch {
        throw .unreadable(error)
    }
}
