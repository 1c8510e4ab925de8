#if canImport(Glibc)
import Glibc
#endif

extension FileDescriptor {
    /// The open file's permission bits (`st_mode & 0o7777`), e.g. `0o600`.
    /// Throws `SystemError` (`fstat PATH: …`).
    package func permissions(path: String? = nil) throws(SystemError) -> UInt32 {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw SystemError("fstat", target: path) }
        return UInt32(info.st_mode) & 0o7777
    }
}
