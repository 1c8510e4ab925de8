#if canImport(Glibc)
import Glibc
#endif

/// The process's descriptor limit (`RLIMIT_NOFILE`): the soft limit is what `open`, `socket` and
/// `accept` fail at (EMFILE); the hard limit is as far as an unprivileged process may raise it.
package struct OpenFileLimit: Sendable, Equatable {
    package var soft: Int
    package var hard: Int

    package init(soft: Int, hard: Int) {
        self.soft = soft
        self.hard = hard
    }

    /// The limits in effect now.
    /// - Throws: `SystemError` (`getrlimit RLIMIT_NOFILE`).
    package static func current() throws(SystemError) -> OpenFileLimit {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { throw SystemError("getrlimit", target: "RLIMIT_NOFILE") }
        return OpenFileLimit(soft: Int(clamping: limit.rlim_cur), hard: Int(clamping: limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (when it is lower) and returns the limits then in
    /// effect. A refusal (a seccomp filter denying `setrlimit`) leaves the soft limit as it was.
    /// - Throws: `SystemError` when the limits cannot even be read.
    package static func raiseSoftToHard() throws(SystemError) -> OpenFileLimit {
        var limit = try current()
        guard limit.soft < limit.hard else { return limit }
        var raised = rlimit(rlim_cur: rlim_t(limit.hard), rlim_max: rlim_t(limit.hard))
        if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit.soft = limit.hard }
        return limit
    }

    /// The descriptors this process has open now (the entries of /proc/self/fd), nil when /proc
    /// cannot be read.
    package static func openDescriptorCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count - 3  // ".", ".." and the directory's own descriptor
    }
}

// RLIMIT_NOFILE is an enum case of __rlimit_resource in glibc's headers.
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
