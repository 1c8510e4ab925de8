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
    public var errno: Int32

    public init(_ operation: String, target: String? = nil, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.target = target
        self.errno = errno
    }

    public var description: String {
        let message = String(cString: strerror(errno))
        let name = errnoNames[errno].map { " (\($0))" } ?? ""
        return "\(operation)\(target.map { " \($0)" } ?? ""): \(message)\(name)"
    }
}

private let errnoNames: [Int32: String] = [
    EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
    ENOMEM: "ENOMEM", EACCES: "EACCES", EEXIST: "EEXIST", ENOTDIR: "ENOTDIR", EISDIR: "EISDIR",
    EINVAL: "EINVAL", ENOSPC: "ENOSPC", EPIPE: "EPIPE", EROFS: "EROFS", EADDRINUSE: "EADDRINUSE",
    ECONNREFUSED: "ECONNREFUSED", ECONNRESET: "ECONNRESET", ETIMEDOUT: "ETIMEDOUT", ENOTSOCK: "ENOTSOCK",
    ENOTTY: "ENOTTY", EBUSY: "EBUSY", ENODEV: "ENODEV", ENXIO: "ENXIO",
]

/// Runs `body` again while it fails with EINTR: interrupted calls are retried in this one place.
@inline(__always)
package func retryingOnInterrupt<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
