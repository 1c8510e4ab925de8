#if canImport(Glibc)
import Glibc
#endif

/// An error number of a failed system call, typed (swift-system's `Errno` shape): callers compare
/// with named values (`.noSuchFileOrDirectory`) instead of importing Glibc for `ENOENT`.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The calling thread's `errno` now (read it right after the call that failed).
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let noSuchAddressOrDevice = Errno(rawValue: ENXIO)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    public static let noMemory = Errno(rawValue: ENOMEM)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let resourceBusy = Errno(rawValue: EBUSY)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let noSuchDevice = Errno(rawValue: ENODEV)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let notTerminal = Errno(rawValue: ENOTTY)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
    public static let notSocket = Errno(rawValue: ENOTSOCK)
    public static let addressInUse = Errno(rawValue: EADDRINUSE)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)

    /// Its symbolic name (`ENOENT`), or the number for one without a name here.
    public var description: String { Self.names[rawValue] ?? "errno \(rawValue)" }

    /// The system's words for it (`No such file or directory`).
    public var message: String { String(cString: strerror(rawValue)) }

    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO", EBADF: "EBADF", EAGAIN: "EAGAIN",
        ENOMEM: "ENOMEM", EACCES: "EACCES", EBUSY: "EBUSY", EEXIST: "EEXIST", ENODEV: "ENODEV", ENOTDIR: "ENOTDIR",
        EISDIR: "EISDIR", EINVAL: "EINVAL", ENFILE: "ENFILE", EMFILE: "EMFILE", ENOTTY: "ENOTTY", EFBIG: "EFBIG",
        ENOSPC: "ENOSPC", EROFS: "EROFS", EPIPE: "EPIPE", ENAMETOOLONG: "ENAMETOOLONG", ENOTSOCK: "ENOTSOCK",
        EADDRINUSE: "EADDRINUSE", ECONNRESET: "ECONNRESET", ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED",
    ]
}
