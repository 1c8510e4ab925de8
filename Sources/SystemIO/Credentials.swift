#if canImport(Glibc)
import Glibc
#endif

/// systemd's credentials (`LoadCredential=`, `SetCredential=`): files in `$CREDENTIALS_DIRECTORY`,
/// by name. The one place a credential's path is made (the destinations' secrets, the relay's).
package enum Credentials {
    /// `$CREDENTIALS_DIRECTORY`, when the service has one (set and not empty); nil otherwise.
    package static func directory() -> String? {
        getenv("CREDENTIALS_DIRECTORY").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The path of credential `name` in `directory` (`/run/credentials/livelocd.service/mqtt-password`);
    /// nil without a directory.
    package static func path(_ name: String, in directory: String? = Credentials.directory()) -> String? {
        directory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + name }
    }
}
