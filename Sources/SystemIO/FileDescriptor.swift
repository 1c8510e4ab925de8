#if canImport(Glibc)
import Glibc
#endif

/// An open file descriptor, owned by whoever holds it; close it exactly once.
package struct FileDescriptor: Sendable, Hashable {
    package let rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    package static let standardInput = FileDescriptor(rawValue: 0)
    package static let standardOutput = FileDescriptor(rawValue: 1)
    package static let standardError = FileDescriptor(rawValue: 2)

    /// Opens `path` for reading. Throws `SystemError` (`open PATH: …`).
    package static func openForReading(_ path: String) throws -> FileDescriptor {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open", target: path) }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            Glibc.close(fd)
            throw SystemError("open", target: path, errno: .isDirectory)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens `path` for reading only when it is a regular file, without waiting at `open`: a FIFO
    /// or a device put where a sysfs attribute is expected (whose `open` would wait for a writer
    /// for ever) is refused with EINVAL, as is a directory with EISDIR.
    /// - Throws: `SystemError` (`open PATH: …`).
    package static func openRegularFileForReading(_ path: String) throws(SystemError) -> FileDescriptor {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else { throw SystemError("open", target: path) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError("fstat", target: path)
            Glibc.close(fd)
            throw error
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            Glibc.close(fd)
            throw SystemError("open", target: path, errno: kind == S_IFDIR ? .isDirectory : .invalidArgument)
        }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens (creating it, mode 0600) a lock file for `tryLockExclusively`.
    package static func openForLocking(_ path: String) throws(SystemError) -> FileDescriptor {
        try openFile(path, FileOpening(.readWrite, creatingWith: 0o600))
    }

    /// Takes an exclusive `flock` on the file without waiting: false when another open file holds
    /// one (another process, or another descriptor of this one). Released when the file is closed.
    package func tryLockExclusively() throws(SystemError) -> Bool {
        if retryingOnInterrupt({ flock(rawValue, LOCK_EX | LOCK_NB) }) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw SystemError("flock")
    }

    /// Releases the `flock` taken with `tryLockExclusively`, then closes the descriptor. The lock
    /// belongs to the open file, not to this descriptor: a child process started meanwhile by
    /// another thread holds the open file too until its exec closes it (O_CLOEXEC), and a close
    /// alone would leave the lock held until then (seen in the test process, whose tests start
    /// processes while others reopen a journal: "in use by process" naming itself).
    package func unlockAndClose() {
        _ = retryingOnInterrupt { flock(rawValue, LOCK_UN) }
        close()
    }

    /// Replaces the file's contents with `bytes` (truncate, then write from the start).
    package func replaceContents(_ bytes: [UInt8], path: String) throws(SystemError) {
        guard ftruncate(rawValue, 0) == 0 else { throw SystemError("ftruncate", target: path) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt { pwrite(rawValue, buffer.baseAddress! + offset, buffer.count - offset, off_t(offset)) }
            }
            guard written >= 0 else { throw SystemError("write", target: path) }
            offset += written
        }
    }

    /// `/dev/null` opened read-only, or nil: a descriptor to hold in reserve and give back when the
    /// table is full (see `ControlServer`).
    package static func openNullDevice() -> FileDescriptor? {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        return fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    }

    /// Reads up to `buffer.count` bytes; 0 at end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
        guard count >= 0 else { throw SystemError("read") }
        return count
    }

    /// Reads to end of file. Throws `SystemError` (`read PATH: …`, EFBIG beyond `limit` bytes).
    package func readToEnd(limit: Int, path: String? = nil) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
            }
            guard count >= 0 else { throw SystemError("read", target: path) }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= limit else { throw SystemError("read", target: path, errno: .fileTooLarge) }
        }
    }

    /// Writes all of `bytes`, retrying short writes.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = retryingOnInterrupt {
                Glibc.write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            }
            guard written >= 0 else { throw SystemError("write") }
            offset += written
        }
    }

    /// Writes all of `bytes`, retrying short writes.
    package func writeAll(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll($0) }
    }

    /// Repositions to the start (for looping over a file).
    package func rewind() throws {
        guard lseek(rawValue, 0, SEEK_SET) >= 0 else { throw SystemError("lseek") }
    }

    /// A pipe, both ends close-on-exec; the reading end non-blocking when `nonBlockingReader`, the
    /// writing end when `nonBlockingWriter`.
    /// - Throws: `SystemError` (`pipe`, `fcntl`), with no end left open.
    package static func makePipe(nonBlockingReader: Bool = false, nonBlockingWriter: Bool = false) throws(SystemError)
        -> (reader: FileDescriptor, writer: FileDescriptor) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SystemError("pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (reader, writer) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        do throws(SystemError) {
            if nonBlockingReader { try reader.setNonBlocking(target: "pipe") }
            if nonBlockingWriter { try writer.setNonBlocking(target: "pipe") }
        } catch {
            reader.close()
            writer.close()
            throw error
        }
        return (reader, writer)
    }

    /// Makes reads and writes on the descriptor return at once (EAGAIN) instead of waiting, or,
    /// with `false`, wait again (`O_NONBLOCK`, by `fcntl`); the flags are left alone when the
    /// descriptor already is as asked.
    /// - Parameter target: what the descriptor is, for the error (a path, `fd 3`).
    /// - Throws: `SystemError` (`fcntl TARGET: Bad file descriptor (EBADF)`…).
    package func setNonBlocking(_ nonBlocking: Bool = true, target: String? = nil) throws(SystemError) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0 else { throw SystemError("fcntl", target: target) }
        let wanted = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        guard wanted != flags else { return }
        guard fcntl(rawValue, F_SETFL, wanted) == 0 else { throw SystemError("fcntl", target: target) }
    }

    package func close() {
        _ = Glibc.close(rawValue)
    }
}
