#if canImport(Glibc)
import Glibc
#endif

/// Whole-file writes that a crash at any moment leaves either old or new, never torn.
package enum AtomicFile {
    /// Writes `bytes` to `path`: a temporary file beside it (`PATH.tmp`, mode `mode`), fsync,
    /// rename over `path`, fsync of the directory.
    /// - Throws: `SystemError` naming the call and file (`fsync /var/lib/livelocd/share.json.tmp: …`).
    package static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws(SystemError) {
        let temporary = path + ".tmp"
        let fd = retryingOnInterrupt { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw SystemError("open", target: temporary) }
        let file = FileDescriptor(rawValue: fd)
        do throws(SystemError) {
            let failed = bytes.withUnsafeBytes { buffer -> Bool in
                var offset = 0
                while offset < buffer.count {
                    let written = retryingOnInterrupt { Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
                    guard written >= 0 else { return true }
                    offset += written
                }
                return false
            }
            if failed { throw SystemError("write", target: temporary) }
            guard fsync(fd) == 0 else { throw SystemError("fsync", target: temporary) }
        } catch {
            file.close()
            unlink(temporary)
            throw error
        }
        file.close()
        guard rename(temporary, path) == 0 else { throw SystemError("rename", target: path) }
        try syncDirectory(containing: path)
    }

    /// Removes `path` (absent is fine) and makes the removal durable (fsync of the directory).
    package static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", target: path) }
        try syncDirectory(containing: path)
    }

    /// fsyncs the directory that holds `path`, so that a rename or unlink in it survives a crash.
    package static func syncDirectory(containing path: String) throws(SystemError) {
        var directory = "."
        if let slash = path.lastIndex(of: "/") { directory = String(path[..<slash]) }
        if directory.isEmpty { directory = "/" }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", target: directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw SystemError("fsync", target: directory) }
    }
}
