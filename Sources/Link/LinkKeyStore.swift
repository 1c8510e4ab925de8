#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
import Locking
import ShareLink
import Signing
import SystemIO

/// The shares' links (id and key), one per share id: drawn at the share's first event, kept in
/// memory and, with a directory, in a file `DIR/<sha256 of the share id>.link` (the link itself,
/// mode 0600, written and synced before anything is posted) until the share's end is delivered,
/// then removed: a key outlives its share nowhere on the device.
package final class LinkKeyStore: Sendable {
    private let relayURL: String
    private let directory: String?
    private let known = Locked<[String: ShareLinkSecrets]>([:])


    package init(relayURL: String, directory: String?) {
        self.relayURL = relayURL
        self.directory = directory
    }

    /// The share's link secrets, and whether they were drawn just now (a new link to announce).
    /// - Throws: `SystemError` when the link cannot be kept in the directory.
    package func secrets(for share: ShareID) throws -> (ShareLinkSecrets, isNew: Bool) {
        if let secrets = known.withLock({ $0[share.rawValue] }) { return (secrets, false) }
        if let path = path(for: share), let bytes = try? readSecretFile(path, limit: 4096),
           let secrets = ShareLinkSecrets(link: String(decoding: bytes, as: UTF8.self).trimmingNewline) {
            known.withLock { $0[share.rawValue] = secrets }
            return (secrets, false)
        }
        let secrets = ShareLinkSecrets.random()
        if let path = path(for: share), let directory {
            try makeDirectories(directory, mode: 0o700)
            let temporary = path + ".tmp"
            let descriptor = try FileDescriptor.openFile(temporary, FileOpening(.writeOnly, creatingWith: 0o600, truncating: true))
            do {
                try descriptor.writeAll(Array((secrets.link(relay: relayURL) + "\n").utf8))
                try descriptor.sync(path: temporary)
                descriptor.close()
            } catch {
                descriptor.close()
                throw error
            }
            try FileSystem.rename(temporary, to: path)
            try syncDirectory(containing: path)
        }
        known.withLock { $0[share.rawValue] = secrets }
        return (secrets, true)
    }

    /// The link of a share this store has (in memory or, after a restart, in its directory), nil
    /// for another: never draws one.
    package func link(for share: ShareID) -> String? {
        if let secrets = known.withLock({ $0[share.rawValue] }) { return secrets.link(relay: relayURL) }
        guard let path = path(for: share), let bytes = try? readSecretFile(path, limit: 4096),
              let secrets = ShareLinkSecrets(link: String(decoding: bytes, as: UTF8.self).trimmingNewline) else { return nil }
        return secrets.link(relay: relayURL)
    }

    /// Forgets a share's link (its end was delivered): from memory and from the directory.
    package func forget(_ share: ShareID) {
        known.withLock { $0[share.rawValue] = nil }
        if let path = path(for: share) { try? FileSystem.remove(path) }
    }

    private func path(for share: ShareID) -> String? {
        directory.map { dir in
            dir + "/" + SHA256.hash(Array(share.rawValue.utf8)).map { byte in
                let hex = Array("0123456789abcdef")
                return String([hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            }.joined() + ".link"
        }
    }
}

extension String {
    fileprivate var trimmingNewline: String {
        var text = self
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
