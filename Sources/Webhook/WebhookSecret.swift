#if canImport(Glibc)
import Glibc
#endif
import Signing
import SystemIO

/// A Standard Webhooks signing secret, `whsec_<base64 key>`. Its description never shows the key.
package struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    /// The HMAC-SHA256 key: the base64-decoded part after `whsec_`.
    let key: [UInt8]

    /// Parses `whsec_<base64>`; nil when the prefix is missing or the rest is not base64 of at least
    /// one byte.
    package init?(_ text: String) {
        guard text.hasPrefix("whsec_"), let key = try? Base64.decode(text.dropFirst(6)), !key.isEmpty else {
            return nil
        }
        self.key = key
    }

    package var description: String { "whsec_… (\(key.count)-byte key)" }

    /// The shortest key accepted, bytes (Standard Webhooks asks for 24 to 64 random bytes).
    package static let minimumKeyBytes = 24

    /// Reads the secrets from a file: one `whsec_…` per line, the first one first; blank lines and
    /// lines starting with `#` are skipped. Several secrets sign every request (key rotation).
    ///
    /// The file must be readable by its owner only (`readSecretFile`), and every key at least
    /// `minimumKeyBytes` long.
    /// Throws `WebhookError.secretFile` (unreadable, or open to group or others),
    /// `.invalidSecret` (naming the line, never its content) or `.noSecret`.
    package static func load(fromFile path: String) throws(WebhookError) -> [WebhookSecret] {
        let text: String
        do { text = String(decoding: try readSecretFile(path, limit: 1 << 20), as: UTF8.self) } catch {
            throw .secretFile(error)
        }
        var secrets: [WebhookSecret] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let secret = WebhookSecret(String(line)) else {
                throw .invalidSecret(path: path, line: index + 1, reason: "not a whsec_<base64> secret")
            }
            guard secret.key.count >= minimumKeyBytes else {
                throw .invalidSecret(path: path, line: index + 1,
                                     reason: "a \(secret.key.count)-byte key; at least \(minimumKeyBytes) bytes are needed "
                                         + "(make one with: echo whsec_$(openssl rand -base64 32))")
            }
            secrets.append(secret)
        }
        guard !secrets.isEmpty else { throw .noSecret(path: path) }
        return secrets
    }
}

/// Signs requests with every secret: the `webhook-signature` header's value,
/// `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>` for each secret, separated by spaces.
/// Each key's padded blocks are hashed once, when the signer is made, not per request.
package struct WebhookSigner: Sendable {
    /// One HMAC per secret, in the secrets' order, keyed and fed nothing yet.
    private let keyed: [HMACSHA256]

    package init(secrets: [WebhookSecret]) {
        keyed = secrets.map { HMACSHA256(key: $0.key) }
    }

    /// The `webhook-signature` value for the message `id.timestamp.body`.
    package func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        let prefix = Array("\(id).\(timestamp).".utf8)
        return keyed.map { keyed in
            var mac = keyed
            mac.update(prefix)
            mac.update(body)
            return "v1," + Base64.encode(mac.finalize())
        }.joined(separator: " ")
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}
