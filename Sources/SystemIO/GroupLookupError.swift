#if canImport(Glibc)
import Glibc
#endif

/// Why a group's id could not be looked up (`groupID(named:groupFile:)`). "No such group" is not an
/// error: the lookup returns nil.
package enum GroupLookupError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The group file exists but cannot be read.
    case unreadable(SystemError)
    /// The group file's entry for the name has no valid numeric id (line numbers start at 1).
    case malformedEntry(path: String, line: Int)
    /// The system's group database (getgrnam_r, through NSS) failed.
    case lookupFailed(SystemError)

    package var description: String {
        switch self {
        case .unreadable(let error): "group file: \(error)"
        case .malformedEntry(let path, let line): "\(path) line \(line): the group's id is not a number"
        case .lookupFailed(let error): "group lookup: \(error)"
        }
    }
}
