#if canImport(Glibc)
import Glibc
#endif

/// How a file is opened: `O_RDONLY`, `O_WRONLY` or `O_RDWR`, with `O_CREAT` and `O_TRUNC` as asked
/// (always `O_CLOEXEC`).
package struct FileOpening: Sendable, Equatable {
    package enum Access: Sendable, Equatable {
        case readOnly, writeOnly, readWrite
    }

    package var access: Access
    /// Creates the file (with these permissions) when it does not exist.
    package var creatingWith: mode_t?
    /// Truncates an existing file to nothing.
    package var truncating = false

    package init(_ access: Access, creatingWith permissions: mode_t? = nil, truncating: Bool = false) {
        self.access = access
        self.creatingWith = permissions
        self.truncating = truncating
    }

    var flags: Int32 {
        var flags: Int32 = O_CLOEXEC
        switch access {
        case .readOnly: flags |= O_RDONLY
        case .writeOnly: flags |= O_WRONLY
        case .readWrite: flags |= O_RDWR
        }
        if creatingWith != nil { flags |= O_CREAT }
        if truncating { flags |= O_TRUNC }
        return flags
    }
}

/// What `fstat`/`stat` tell of a file that matters for knowing whether a path still names it.
package struct FileStatus: Sendable, Equatable {
    package var device: UInt64
    package var inode: UInt64
    /// How many names the file has; 0 once the last was removed while it is open.
    package var linkCount: UInt64
    /// Its length in bytes.
    package var size: Int64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        linkCount = UInt64(status.st_nlink)
        size = Int64(status.st_size)
    }

    /// Whether `other` is the same file (device and inode).
    package func isSameFile(as other: FileStatus) -> Bool { device == other.device && inode == other.inode }

    /// The file at `path` (following symbolic links).
    /// - Throws: `SystemError` (`stat PATH: …`; ENOENT when nothing is there).
    package init(path: String) throws(SystemError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw SystemError("stat", target: path) }
        self.init(status)
    }
}

extension FileDescriptor {
    /// Opens `path` as `opening` says.
    /// - Throws: `SystemError` (`open PATH: …`).
    package static func openFile(_ path: String, _ opening: FileOpening) throws(SystemError) -> FileDescriptor {
        let fd = retryingOnInterrupt {
            opening.creatingWith.map { Glibc.open(path, opening.flags, $0) } ?? Glibc.open(path, opening.flags)
        }
        guard fd >= 0 else { throw SystemError("open", target: path) }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens `path` for reading; nil when there is no such file.
    /// - Throws: `SystemError` (`open PATH: …`) for any other failure, a directory included.
    package static func openForReadingIfPresent(_ path: String) throws(SystemError) -> FileDescriptor? {
        do { return try openForReading(path) } catch {
            let failure = error as? SystemError ?? SystemError("open", target: path)
            if failure.errno == .noSuchFileOrDirectory { return nil }
            throw failure
        }
    }

    /// Sets the file's permission bits (`fchmod`).
    /// - Throws: `SystemError` (`fchmod PATH: …`).
    package func setPermissions(_ mode: mode_t, path: String? = nil) throws(SystemError) {
        guard fchmod(rawValue, mode) == 0 else { throw SystemError("fchmod", target: path) }
    }

    /// Writes the file's data and metadata to the disk (`fsync`).
    /// - Throws: `SystemError` (`fsync PATH: …`).
    package func sync(path: String? = nil) throws(SystemError) {
        guard retryingOnInterrupt({ fsync(rawValue) }) == 0 else { throw SystemError("fsync", target: path) }
    }

    /// Writes the file's data, and what of its metadata reading it needs, to the disk (`fdatasync`).
    /// - Throws: `SystemError` (`fdatasync PATH: …`).
    package func syncData(path: String? = nil) throws(SystemError) {
        guard retryingOnInterrupt({ fdatasync(rawValue) }) == 0 else { throw SystemError("fdatasync", target: path) }
    }

    /// Writes `count` zero bytes from `offset` on (`pwrite`, `chunkBytes` at a time, short writes retried).
    /// - Throws: `SystemError` (`pwrite PATH: …`).
    package func writeZeros(_ count: Int64, at offset: Int64, chunkBytes: Int = 65_536, path: String? = nil) throws(SystemError) {
        let chunk = [UInt8](repeating: 0, count: max(1, chunkBytes))
        var done: Int64 = 0
        while done < count {
            let length = Int(min(Int64(chunk.count), count - done))
            let written = chunk.withUnsafeBytes { bytes in
                retryingOnInterrupt { pwrite(rawValue, bytes.baseAddress!, length, off_t(offset + done)) }
            }
            guard written > 0 else { throw SystemError("pwrite", target: path) }
            done += Int64(written)
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`, short writes retried); the file's offset is not moved.
    /// - Throws: `SystemError` (`pwrite PATH: …`).
    package func write(_ bytes: [UInt8], at offset: Int64, path: String? = nil) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { pwrite(rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done))) }
            }
            guard written > 0 else { throw SystemError("pwrite", target: path) }
            done += written
        }
    }

    /// Brings the file's first `length` bytes back into the page cache one `pageBytes` page at a
    /// time: drops what is cached of them (`POSIX_FADV_DONTNEED`: their pages must be clean, that
    /// is synced), then reads one byte of each page with readahead off for this descriptor
    /// (`POSIX_FADV_RANDOM`), so that each comes in as a folio of one page, not in the large
    /// folios readahead makes (see `WriteAheadLogFile`).
    /// - Throws: `SystemError` (`posix_fadvise PATH: …`, `pread PATH: …`).
    package func recacheInPages(upTo length: Int64, pageBytes: Int, path: String? = nil) throws(SystemError) {
        for advice in [POSIX_FADV_DONTNEED, POSIX_FADV_RANDOM] {
            let code = posix_fadvise(rawValue, 0, advice == POSIX_FADV_RANDOM ? 0 : off_t(length), advice)
            guard code == 0 else { throw SystemError("posix_fadvise", target: path, errno: Errno(rawValue: code)) }
        }
        var byte: UInt8 = 0
        var offset: Int64 = 0
        while offset < length {
            guard retryingOnInterrupt({ pread(rawValue, &byte, 1, off_t(offset)) }) >= 0 else { throw SystemError("pread", target: path) }
            offset += Int64(max(1, pageBytes))
        }
    }

    /// The open file's status (`fstat`).
    /// - Throws: `SystemError` (`fstat PATH: …`).
    package func status(path: String? = nil) throws(SystemError) -> FileStatus {
        var status = stat()
        guard fstat(rawValue, &status) == 0 else { throw SystemError("fstat", target: path) }
        return FileStatus(status)
    }
}

/// Calls on names in the file system: each failure a `SystemError` naming the call and the path.
package enum FileSystem {
    /// Whether anything is at `path` (`access(F_OK)`).
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Checks that this process (its effective user and groups) may read the file at `path`, and
    /// that it is not a directory, without opening it (`stat`, `faccessat(R_OK, AT_EACCESS)`): no
    /// waiting on a FIFO, nothing a device does when it is opened.
    /// - Throws: `SystemError` (`stat PATH: No such file or directory (ENOENT)`, `access PATH: …
    ///   (EACCES)`, `open PATH: Is a directory (EISDIR)`).
    package static func checkReadable(_ path: String) throws(SystemError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw SystemError("stat", target: path) }
        guard (status.st_mode & S_IFMT) != S_IFDIR else { throw SystemError("open", target: path, errno: .isDirectory) }
        guard faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) == 0 else { throw SystemError("access", target: path) }
    }

    /// Makes the directory `path` with `mode`: true when it was made, false when it was there.
    /// (The new name is not synced: see `syncDirectory(containing:)`.)
    /// - Throws: `SystemError` (`mkdir PATH: …`) for any failure but EEXIST.
    package static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) -> Bool {
        if retryingOnInterrupt({ mkdir(path, mode) }) == 0 { return true }
        if Errno.current == .fileExists { return false }
        throw SystemError("mkdir", target: path)
    }

    /// Renames `source` to `target`, replacing what is there.
    /// - Throws: `SystemError` (`rename SOURCE: …`).
    package static func rename(_ source: String, to target: String) throws(SystemError) {
        guard Glibc.rename(source, target) == 0 else { throw SystemError("rename", target: source) }
    }

    /// Gives the file at `existing` a second name, `newName` (a hard link).
    /// - Throws: `SystemError` (`link EXISTING: …`).
    package static func link(_ existing: String, as newName: String) throws(SystemError) {
        guard Glibc.link(existing, newName) == 0 else { throw SystemError("link", target: existing) }
    }

    /// Removes the name `path` (`unlink`); absent is fine.
    /// - Throws: `SystemError` (`unlink PATH: …`) for any failure but ENOENT.
    package static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 && Errno.current != .noSuchFileOrDirectory { throw SystemError("unlink", target: path) }
    }
}

/// This process's id (`getpid`).
package var currentProcessID: Int32 { getpid() }
