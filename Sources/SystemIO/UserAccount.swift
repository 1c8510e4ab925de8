#if canImport(Glibc)
import Glibc
#endif

/// A system user as passwd(5) and group(5) have it: what a process needs to become that user, as
/// systemd's `User=` makes it (its primary group and the groups that list it as a member).
package struct UserAccount: Sendable, Equatable {
    package var name: String
    package var uid: uid_t
    package var gid: gid_t
    /// The groups whose member list names this user (`dialout` for a serial receiver, say).
    package var supplementaryGroups: [gid_t]

    package init(name: String, uid: uid_t, gid: gid_t, supplementaryGroups: [gid_t]) {
        self.name = name
        self.uid = uid
        self.gid = gid
        self.supplementaryGroups = supplementaryGroups
    }

    /// The user `name` in `passwdFile` (where systemd-sysusers puts livelocd's), with the groups of
    /// `groupFile` that list it; nil when the file has no such user.
    /// - Throws: `GroupLookupError`: a file that exists but cannot be read, an entry without ids.
    package static func named(_ name: String, passwdFile: String = "/etc/passwd",
                              groupFile: String = "/etc/group") throws(GroupLookupError) -> UserAccount? {
        guard let entry = try accountFileEntries(passwdFile)?.first(where: { $0.fields.count >= 4 && $0.fields[0] == name }) else {
            return nil
        }
        guard let uid = uid_t(entry.fields[2]), let gid = gid_t(entry.fields[3]), uid != uid_t.max, gid != gid_t.max else {
            throw .malformedEntry(path: passwdFile, line: entry.line)
        }
        let groups = (try accountFileEntries(groupFile) ?? []).compactMap { group -> gid_t? in
            guard group.fields.count >= 4, group.fields[3].split(separator: ",").contains(Substring(name)) else { return nil }
            return gid_t(group.fields[2])
        }
        return UserAccount(name: name, uid: uid, gid: gid, supplementaryGroups: groups)
    }

    /// The name passwd(5) gives user id `uid`, or the number itself when it has none.
    package static func name(of uid: uid_t, passwdFile: String = "/etc/passwd") -> String {
        let entries = (try? accountFileEntries(passwdFile)) ?? nil
        return entries?.first(where: { $0.fields.count >= 3 && uid_t($0.fields[2]) == uid })?.fields[0] ?? "\(uid)"
    }

    /// Makes this process this user, for good: its supplementary groups, its group, then its user id
    /// (in that order: once the user id is given up, the groups can no longer be changed). Called
    /// as root, setgid and setuid set the real, effective and saved ids alike, for every thread (glibc).
    /// - Throws: `SystemError` naming the call that failed (the process is then unchanged or still root).
    package func become() throws(SystemError) {
        var groups = supplementaryGroups
        guard setgroups(groups.count, &groups) == 0 else { throw SystemError("setgroups", target: name) }
        guard setgid(gid) == 0 else { throw SystemError("setgid", target: name) }
        guard setuid(uid) == 0, geteuid() == uid else { throw SystemError("setuid", target: name) }
    }
}
