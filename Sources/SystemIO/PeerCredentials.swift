#if canImport(Glibc)
import Glibc
#endif

/// The identity of the process at the other end of a Unix socket, as the kernel reports it
/// (`SO_PEERCRED`, `SO_PEERGROUPS`) when it connected.
package struct PeerCredentials: Sendable, Equatable {
    package var pid: pid_t
    package var uid: uid_t
    package var gid: gid_t
    /// Supplementary groups.
    package var groups: [gid_t]

    package init(pid: pid_t, uid: uid_t, gid: gid_t, groups: [gid_t]) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Whether `group` is the peer's primary or one of its supplementary groups.
    package func belongs(to group: gid_t) -> Bool {
        gid == group || groups.contains(group)
    }
}
