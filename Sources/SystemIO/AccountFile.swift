#if canImport(Glibc)
import Glibc
#endif

/// The entries of a passwd(5) or group(5) file: one array of colon-separated fields per line, with
/// the line's number (from 1); nil when the file does not exist. systemd-sysusers writes livelocd's
/// user and groups to these files, so they are read directly: the NSS modules nsswitch.conf names
/// are loaded only for a name the files do not have (see `groupID(named:groupFile:)`).
/// - Throws: `GroupLookupError.unreadable` when the file exists but cannot be read.
func accountFileEntries(_ path: String) throws(GroupLookupError) -> [(line: Int, fields: [String])]? {
    let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
    guard fd >= 0 else {
        if errno == ENOENT { return nil }
        throw .unreadable(SystemError("open", target: path))
    }
    let descriptor = FileDescriptor(rawValue: fd)
    defer { descriptor.close() }
    let text: [UInt8]
    do { text = try descriptor.readToEnd(limit: 16 << 20, path: path) } catch { throw .unreadable(error) }
    return text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated().map { index, line in
        (index + 1, line.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) })
    }
}
