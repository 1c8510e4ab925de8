#if canImport(Glibc)
import Glibc
#endif

/// An error number of a failed system call, typed (swift-system's `Errno` shape): callers compare
/// with named values (`.noSuchFileOrDirectory`) instead of importing Glibc for `ENOENT`.
package struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's `errno` now (read it right after the call that failed).
    package static var current: Errno { Errno(rawValue: Glibc.errno) }

    package static let notPermitted = Errno(rawValue: EPERM)
    package static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    package static let interrupted = Errno(rawValue: EINTR)
    package static let ioError = Errno(rawValue: EIO)
    package static let noSuchAddressOrDevice = Errno(rawValue: ENXIO)
    package static let badFileDescriptor = Errno(rawValue: EBADF)
    package static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    package static let noMemory = Errno(rawValue: ENOMEM)
    package static let permissionDenied = Errno(rawValue: EACCES)
    package static let resourceBusy = Errno(rawValue: EBUSY)
    package static let fileExists = Errno(rawValue: EEXIST)
    package static let noSuchDevice = Errno(rawValue: ENODEV)
    package static let notDirectory = Errno(rawValue: ENOTDIR)
    package static let isDirectory = Errno(rawValue: EISDIR)
    package static let invalidArgument = Errno(rawValue: EINVAL)
    package static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    package static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    package static let notTerminal = Errno(rawValue: ENOTTY)
    package static let fileTooLarge = Errno(rawValue: EFBIG)
    package static let noSpace = Errno(rawValue: ENOSPC)
    package static let readOnlyFileSystem = Errno(rawValue: EROFS)
    package static let brokenPipe = Errno(rawValue: EPIPE)
    package static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
    package static let notSocket = Errno(rawValue: ENOTSOCK)
    package static let addressInUse = Errno(rawValue: EADDRINUSE)
    package static let connectionReset = Errno(rawValue: ECONNRESET)
    package static let timedOut = Errno(rawValue: ETIMEDOUT)
    package static let connectionRefused = Errno(rawValue: ECONNREFUSED)

    /// Its symbolic name (`ENOENT`), or the number for one without a name here.
    package var description: String { Self.names[rawValue] ?? "errno \(rawValue)" }

    /// The system's words for it (`No such file or directory`).
    package var message: String { String(cString: strerror(rawValue)) }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ENOTTY: "ENOTTY", EFBIG: "EFBIG",
        ENOSPC: "ENOSPC", EROFS: "EROFS", EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG", ENOTSOCK: "ENOTSOCK",
        EADDRINUSE: "EADDRINUSE", ECONNRESET: "ECONNRESET", ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED",
    ]
}
