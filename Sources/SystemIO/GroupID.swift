#if canImport(Glibc)
import Glibc
#endif

/// The id of group `nameOrNumber` (a decimal number is taken as the id itself), or nil when there
/// is no such group.
///
/// `groupFile` (`/etc/group`, where systemd-sysusers creates livelocd's groups) is read first; the
/// system's group database (`getgrnam_r`) is asked only for a name the file does not have, or
/// when there is no file. glibc loads the NSS modules nsswitch.conf names (libnss_systemd and what
/// it links, about 0.3 MB resident on Debian 12; more where `sss`, `ldap` or `compat` come
/// first) once it has to look past its built-in `files`, and keeps them mapped for the life of the
/// process: a daemon whose group is in the file never loads them, whatever the nsswitch order.
/// - Throws: `GroupLookupError`: the file exists but cannot be read, its entry for the name has no
///   numeric id, or getgrnam_r failed (not "no such group").
package func groupID(named nameOrNumber: String, groupFile: String = "/etc/group") throws(GroupLookupError) -> gid_t? {
    if let number = gid_t(nameOrNumber) { return number }
    guard !nameOrNumber.isEmpty, !nameOrNumber.utf8.contains(UInt8(ascii: ":")) else { return nil }
    if let id = try groupIDInFile(nameOrNumber, path: groupFile) { return id }
    return try groupIDFromDatabase(nameOrNumber)
}

/// The id of `name` in a group(5) file (`name:password:id:members` lines); nil when the file has no
/// such name or does not exist.
private func groupIDInFile(_ name: String, path: String) throws(GroupLookupError) -> gid_t? {
    for entry in try accountFileEntries(path) ?? [] where entry.fields.count >= 3 && entry.fields[0] == name {
        guard let id = gid_t(entry.fields[2]), id != gid_t.max else { throw .malformedEntry(path: path, line: entry.line) }
        return id
    }
    return nil
}

/// The id of `name` in the system's group database (NSS), or nil when it has no such group.
private func groupIDFromDatabase(_ name: String) throws(GroupLookupError) -> gid_t? {
    var entry = Glibc.group()
    var result: UnsafeMutablePointer<Glibc.group>?
    var bufferSize = 4096
    while true {
        var buffer = [CChar](repeating: 0, count: bufferSize)
        let status = getgrnam_r(name, &entry, &buffer, buffer.count, &result)
        switch status {
        case 0: return result == nil ? nil : entry.gr_gid
        case ENOENT, ESRCH: return nil
        case ERANGE where bufferSize < 1 << 20: bufferSize *= 4
        default: throw .lookupFailed(SystemError("getgrnam_r", target: name, errno: Errno(rawValue: status)))
        }
    }
}
