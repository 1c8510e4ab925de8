#if canImport(Glibc)
import Glibc
#endif

/// Talks to systemd over `$NOTIFY_SOCKET` (sd_notify): `READY=1`, `STATUS=…`, `STOPPING=1`,
/// `WATCHDOG=1`. Does nothing when the daemon is not run by systemd (no `NOTIFY_SOCKET`).
/// Both forms of the socket address work: a path, and an abstract name starting with `@`.
package struct SystemdNotifier: Sendable {
    private let socketPath: String?
    private let descriptor: FileDescriptor?
    /// How often systemd wants `WATCHDOG=1` (`WATCHDOG_USEC`, when meant for this process).
    package let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`, and removes them from the
    /// environment so that child processes do not inherit them.
    package static func fromEnvironment() -> SystemdNotifier {
        let path = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
        var interval: Duration?
        if let usec = getenv("WATCHDOG_USEC").flatMap({ Int64(String(cString: $0)) }), usec > 0 {
            let pid = getenv("WATCHDOG_PID").flatMap { pid_t(String(cString: $0)) }
            if pid == nil || pid == getpid() { interval = .microseconds(usec) }
        }
        unsetenv("NOTIFY_SOCKET"); unsetenv("WATCHDOG_USEC"); unsetenv("WATCHDOG_PID")
        return SystemdNotifier(socketPath: path, watchdogInterval: interval)
    }

    init(socketPath: String?, watchdogInterval: Duration?) {
        self.socketPath = socketPath.flatMap { $0.isEmpty ? nil : $0 }
        self.watchdogInterval = watchdogInterval
        if self.socketPath != nil {
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            descriptor = fd >= 0 ? FileDescriptor(rawValue: fd) : nil
        } else {
            descriptor = nil
        }
    }

    /// Whether systemd listens.
    package var isActive: Bool { descriptor != nil }

    /// Sends one notification, e.g. `READY=1\nSTATUS=Idle`. Never blocks: a notification the
    /// receiver has no room for is dropped with an error (EAGAIN). A blocking send waited for a
    /// receiver that stopped reading (a full queue: 11 datagrams by default) and held the daemon's
    /// one pool thread with it, so that a SIGTERM was never acted on (SystemdTests, under load).
    /// systemd reads its socket at once, and a `WATCHDOG=1` comes again at the next interval.
    /// - Throws: `SystemError` (`sendto @/org/…: …`) when the message cannot be sent.
    package func notify(_ state: String) throws(SystemError) {
        guard let socketPath, let descriptor else { return }
        let bytes = Array(state.utf8)
        let sent = try UnixSocket.withAddress(socketPath) { address, length in
            bytes.withUnsafeBytes { buffer in
                retryingOnInterrupt {
                    sendto(descriptor.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), address, length)
                }
            }
        }
        guard sent >= 0 else { throw SystemError("sendto", target: socketPath) }
    }
}
