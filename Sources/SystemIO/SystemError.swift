#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: what was being done, on what, and the errno, rendered as one line such as
/// `open /var/log/x.nmea: No such file or directory (ENOENT)`.
public struct SystemError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What was being done, e.g. `open`, `bind`, `fsync`.
    public var operation: String
    /// The file, socket path or peer it was done on, if any.
    public var target: String?
    public var errno: Errno

    public init(_ operation: String, target: String? = nil, errno: Errno = .current) {
        self.operation = operation
        self.target = target
        self.errno = errno
    }

    public var description: String {
        let name = errno.description.hasPrefix("E") ? " (\(errno))" : ""
        return "\(operation)\(target.map { " \($0)" } ?? ""): \(errno.message)\(name)"
    }
}

/// Runs `body` again while it fails with EINTR: interrupted calls are retried in this one place.
@inline(__always)
package func retryingOnInterrupt<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
