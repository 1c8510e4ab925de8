#if canImport(Glibc)
import Glibc
#endif

/// A Unix-domain socket, owned by whoever holds it; close it exactly once.
///
/// A thin typed layer over the socket calls: every failure is a `SystemError` naming the call and
/// the socket path, e.g. `bind /run/livelocd/control.sock: Permission denied (EACCES)`.
package struct UnixSocket: Sendable {
    package let descriptor: FileDescriptor
    /// The path it is bound or connected to, for error messages.
    package let path: String

    package init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// A new non-blocking stream socket listening on `path`, replacing a stale socket file there.
    /// The file gets `mode` and, when given, the group `group`. `backlog` bounds the connections
    /// the kernel holds before they are accepted (they cost no descriptor of this process).
    ///
    /// A socket file someone still listens on is not taken over: it is connected to first, and only
    /// one that refuses the connection (nobody listens: a process that ended without removing it)
    /// is removed. When the file cannot be bound, given its group or mode, nothing is left behind.
    /// - Throws: `SystemError`; `bind PATH: Address already in use (EADDRINUSE)` when a process
    ///   answers on `path`.
    package static func listen(path: String, mode: mode_t, group: gid_t?, backlog: Int32) throws(SystemError) -> UnixSocket {
        try removeStaleSocketFile(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", target: path) }
        let socket = UnixSocket(descriptor: FileDescriptor(rawValue: fd), path: path)
        var bound = false
        do throws(SystemError) {
            // Bind with a restrictive umask so the file is never wider than `mode`, even briefly.
            let old = umask(0o177)
            let result = try withAddress(path) { bind(fd, $0, $1) }
            umask(old)
            guard result == 0 else { throw SystemError("bind", target: path) }
            bound = true
            if let group, chown(path, uid_t.max, group) != 0 { throw SystemError("chown", target: path) }
            guard chmod(path, mode) == 0 else { throw SystemError("chmod", target: path) }
            guard Glibc.listen(fd, backlog) == 0 else { throw SystemError("listen", target: path) }
        } catch {
            socket.descriptor.close()
            if bound, !path.hasPrefix("@") { unlink(path) }
            throw error
        }
        return socket
    }

    /// Removes the socket file at `path` when nobody listens on it any more; leaves anything else.
    /// - Throws: EADDRINUSE (`bind PATH`) when a connection to it is accepted or waits in its backlog.
    private static func removeStaleSocketFile(_ path: String) throws(SystemError) {
        var info = stat()
        guard !path.hasPrefix("@"), lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else { return }
        do {
            let live = try connect(path: path, deadline: .now + .seconds(1))
            live.close()
        } catch where error.errno == .connectionRefused {
            unlink(path)
            return
        } catch {
            // A full backlog (ETIMEDOUT) is a listener too; any other failure (EACCES) is bind's to report.
            guard error.errno == .timedOut else { return }
        }
        throw SystemError("bind", target: path, errno: .addressInUse)
    }

    /// The listening socket systemd passed (socket activation, `LISTEN_FDS`/`LISTEN_PID`), if any,
    /// made non-blocking. The variables are removed so that children do not inherit them.
    package static func activated(path: String) throws(SystemError) -> UnixSocket? {
        guard let pid = getenv("LISTEN_PID").flatMap({ pid_t(String(cString: $0)) }), pid == getpid(),
              let count = getenv("LISTEN_FDS").flatMap({ Int(String(cString: $0)) }), count >= 1
        else { return nil }
        unsetenv("LISTEN_PID"); unsetenv("LISTEN_FDS"); unsetenv("LISTEN_FDNAMES")
        let fd: Int32 = 3  // SD_LISTEN_FDS_START
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 else {
            throw SystemError("getsockopt SO_ACCEPTCONN", target: "fd 3")
        }
        guard listening != 0 else { throw SystemError("socket activation", target: "fd 3", errno: .invalidArgument) }
        let inherited = FileDescriptor(rawValue: fd)
        try inherited.setNonBlocking(target: "fd 3")
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw SystemError("fcntl", target: "fd 3") }
        return UnixSocket(descriptor: inherited, path: path)
    }

    /// Connects a non-blocking stream socket to `path`, giving up at `deadline`.
    ///
    /// A Unix socket's `connect` does not wait when the listener's backlog is full: it fails with
    /// EAGAIN at once. That is retried every 10 ms until the deadline, then reported as ETIMEDOUT
    /// (`connect PATH: Connection timed out (ETIMEDOUT)`); so is an EINPROGRESS that the deadline cuts.
    /// - Throws: `SystemError` naming `connect` and the path (ENOENT, ECONNREFUSED, EACCES, ETIMEDOUT…).
    package static func connect(path: String, deadline: ContinuousClock.Instant) throws(SystemError) -> UnixSocket {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", target: path) }
        let socket = UnixSocket(descriptor: FileDescriptor(rawValue: fd), path: path)
        do throws(SystemError) {
            while true {
                let result = try withAddress(path) { address, length in Glibc.connect(fd, address, length) }
                if result == 0 { return socket }
                switch errno {
                case EINTR:
                    continue
                case EAGAIN:
                    // The backlog is full: wait a little and knock again, within the deadline.
                    guard ContinuousClock.now < deadline else { throw SystemError("connect", target: path, errno: .timedOut) }
                    let pause = min(Duration.milliseconds(10), deadline - ContinuousClock.now)
                    usleep(useconds_t(max(0, pause.wholeMicroseconds)))
                case EINPROGRESS:
                    guard try socket.descriptor.poll(for: .writable, until: deadline) else {
                        throw SystemError("connect", target: path, errno: .timedOut)
                    }
                    try socket.descriptor.finishConnect(target: path)
                    return socket
                default:
                    throw SystemError("connect", target: path)
                }
            }
        } catch {
            socket.close()
            throw error
        }
    }

    /// Accepts one pending connection as a non-blocking socket; nil when none is pending.
    /// - Throws: `SystemError` (`accept PATH: Too many open files (EMFILE)`…).
    package func accept() throws(SystemError) -> UnixSocket? {
        let fd = retryingOnInterrupt { Glibc.accept(descriptor.rawValue, nil, nil) }
        if fd < 0 {
            switch errno {
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return nil
            default: throw SystemError("accept", target: path)
            }
        }
        // accept4 is not in the Glibc module; nothing forks here, so setting the flags after is safe.
        let accepted = FileDescriptor(rawValue: fd)
        do throws(SystemError) {
            guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw SystemError("fcntl", target: path) }
            try accepted.setNonBlocking(target: path)
        } catch {
            accepted.close()
            throw error
        }
        return UnixSocket(descriptor: accepted, path: path)
    }

    /// Reads what is available into `buffer` (its whole count): the count, 0 at end of stream, nil
    /// when nothing is available now.
    package func receive(into buffer: inout [UInt8]) throws(SystemError) -> Int? {
        let result = buffer.withUnsafeMutableBytes { bytes in Result { () throws(SystemError) in try descriptor.receiveNow(into: bytes, target: path) } }
        return try result.get()
    }

    /// Writes what the socket takes of `bytes` now: the count written, 0 when it would block.
    package func send(_ bytes: ArraySlice<UInt8>) throws(SystemError) -> Int {
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(SystemError) in try descriptor.sendNow(buffer, target: path) } }
        return try result.get()
    }

    /// Ends the writing direction: the peer reads end of stream after what was sent.
    package func shutdownWriting() {
        _ = Glibc.shutdown(descriptor.rawValue, Int32(SHUT_WR))
    }

    /// Who is at the other end (`SO_PEERCRED`) and their supplementary groups (`SO_PEERGROUPS`).
    package func peer() throws(SystemError) -> PeerCredentials {
        var raw = (Int32(0), UInt32(0), UInt32(0))  // struct ucred: pid, uid, gid
        var length = socklen_t(MemoryLayout.size(ofValue: raw))
        guard getsockopt(descriptor.rawValue, SOL_SOCKET, SO_PEERCRED, &raw, &length) == 0 else {
            throw SystemError("getsockopt SO_PEERCRED", target: path)
        }
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var size = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            if getsockopt(descriptor.rawValue, SOL_SOCKET, SO_PEERGROUPS, &groups, &size) == 0 {
                groups.removeSubrange((Int(size) / MemoryLayout<gid_t>.size)...)
                break
            }
            // ERANGE: the kernel says how much room the list needs.
            if errno == ERANGE, Int(size) > groups.count * MemoryLayout<gid_t>.size, groups.count < 65536 {
                groups = [gid_t](repeating: 0, count: Int(size) / MemoryLayout<gid_t>.size)
                continue
            }
            // No SO_PEERGROUPS (a kernel before 4.13; qemu-user, which answers ERANGE without a size,
            // as in scripts/deb-check's arm64 chroots): the groups the user database gives the peer's
            // user. (The kernel has let the peer connect by the socket's own group and mode already.)
            guard let listed = Self.databaseGroups(uid: raw.1, gid: raw.2) else {
                throw SystemError("getsockopt SO_PEERGROUPS", target: path)
            }
            groups = listed
            break
        }
        return PeerCredentials(pid: raw.0, uid: raw.1, gid: raw.2, groups: groups)
    }

    /// The groups of the user `uid` (with `gid`) in the user database (getgrouplist), nil when unknown.
    private static func databaseGroups(uid: uid_t, gid: gid_t) -> [gid_t]? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 4096)
        // The name points into `buffer`: everything is done while its storage is held.
        return buffer.withUnsafeMutableBufferPointer { storage -> [gid_t]? in
            guard getpwuid_r(uid, &entry, storage.baseAddress!, storage.count, &found) == 0, found != nil,
                  let name = entry.pw_name else { return nil }
            var count: Int32 = 64
            var groups = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(name, gid, &groups, &count) < 0 {
                groups = [gid_t](repeating: 0, count: Int(count))
                guard getgrouplist(name, gid, &groups, &count) >= 0 else { return nil }
            }
            return Array(groups.prefix(Int(count)))
        }
    }

    package func close() { descriptor.close() }

    /// Calls `body` with a `sockaddr_un` for `path` (a leading `@` names an abstract socket).
    /// - Throws: ENAMETOOLONG when `path` does not fit `sun_path` (107 bytes), EINVAL when empty.
    package static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) throws(SystemError) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty else { throw SystemError("socket address", target: path, errno: .invalidArgument) }
        guard bytes.count < capacity else { throw SystemError("socket address", target: path, errno: .fileNameTooLong) }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        // Abstract names are exactly their bytes; paths carry their terminating zero.
        let length = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
