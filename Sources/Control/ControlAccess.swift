#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// Who may do what on the control socket, decided from the caller's credentials (`SO_PEERCRED`,
/// `SO_PEERGROUPS`): root, the daemon's own user and members of the control group may do
/// everything; anyone else may ask for the status, and only when the status is public.
package struct ControlAccess: Sendable, Equatable {
    /// The control group's id; nil when it does not exist (only root and the daemon's user then).
    package var group: gid_t?
    /// Whether anyone may ask for the status.
    package var statusPublic: Bool
    /// The daemon's own (effective) uid.
    package var ownUID: uid_t

    package init(group: gid_t?, statusPublic: Bool, ownUID: uid_t = geteuid()) {
        self.group = group
        self.statusPublic = statusPublic
        self.ownUID = ownUID
    }

    /// Whether `peer` may do everything (root, the daemon's user, a member of the control group).
    package func isAuthorized(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == ownUID { return true }
        guard let group else { return false }
        return peer.belongs(to: group)
    }

    /// Whether a caller, authorized or not, may make `request`.
    package func permits(_ request: ControlRequest, authorized: Bool) -> Bool {
        authorized || (statusPublic && request == .status)
    }
}
