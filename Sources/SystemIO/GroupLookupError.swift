#if canImport(Glibc)
import Glibc
#endif

/// Why a group's or a user's ids could not be looked up (`groupID(named:groupFile:)`,
/// `UserAccount.named`). "No such group" or "no such user" is not an error: the lookup returns nil.
package enum GroupLookupError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The group (or passwd) file exists but cannot be read.
    case unreadable(SystemError)
    /// The file's entry for the name has no valid numeric id (line numbers start at 1).
    case malformedEntry(path: String, line: Int)
    /// The system's group database (getgrnam_r, through NSS) failed.
    case lookupFailed(SystemError)

    package var description: String {
        switch self {
        case .unreadable(let error): "account file: \(error)"
        case .malformedEntry(let path, let line): "\(path) line \(line): the id is not a number"
        case .lookupFailed(let error): "group lookup: \(error)"
        }
    }
}
