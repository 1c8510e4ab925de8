#if canImport(Glibc)
import Glibc
#endif
import CCrypto
import SystemIO

/// A Standard Webhooks signing secret, `whsec_<base64 key>`. Its description never shows the key.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    /// The HMAC-SHA256 key: the base64-decoded part after `whsec_`.
    let key: [UInt8]

    /// Parses `whsec_<base64>`; nil when the prefix is missing or the rest is not base64 of at least
    /// one byte.
    public init?(_ text: String) {
        guard text.hasPrefix("whsec_"), let key = base64Decode(text.dropFirst(6)), !key.isEmpty else {
            return nil
        }
        self.key = key
    }

    public var description: String { "whsec_… (\(key.count)-byte key)" }

    /// The shortest key accepted, bytes (Standard Webhooks asks for 24 to 64 random bytes).
    public static let minimumKeyBytes = 24

    /// Reads the secrets from a file: one `whsec_…` per line, the first one first; blank lines and
    /// lines starting with `#` are skipped. Several secrets sign every request (key rotation).
    ///
    /// The file must be readable by its owner only (`readSecretFile`), and every key at least
    /// `minimumKeyBytes` long.
    /// Throws `WebhookError.secretFile` (unreadable, or open to group or others),
    /// `.invalidSecret` (naming the line, never its content) or `.noSecret`.
    public static func load(fromFile path: String) throws(WebhookError) -> [WebhookSecret] {
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

    /// The path of systemd credential `name` (`$CREDENTIALS_DIRECTORY/name`), when the service has a
    /// credentials directory (`LoadCredential=`/`SetCredential=`); nil otherwise.
    public static func credentialPath(_ name: String) -> String? {
        guard let directory = getenv("CREDENTIALS_DIRECTORY").map({ String(cString: $0) }), !directory.isEmpty
        else { return nil }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}

/// The `webhook-signature` header value: `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>` for each
/// secret, separated by spaces.
func webhookSignature(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> String {
    var message = Array("\(id).\(timestamp).".utf8)
    message.append(contentsOf: body)
    return secrets.map { secret in
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        secret.key.withUnsafeBytes { key in
            message.withUnsafeBytes { data in
                _ = HMAC(EVP_sha256(), key.baseAddress, Int32(key.count),
                         data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count, &digest, &length)
            }
        }
        return "v1," + base64Encode(digest[0..<Int(length)])
    }.joined(separator: " ")
}

func base64Encode(_ bytes: ArraySlice<UInt8>) -> String {
    var output = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
    let written = bytes.withUnsafeBufferPointer { input in
        EVP_EncodeBlock(&output, input.baseAddress, Int32(input.count))
    }
    return String(decoding: output[0..<Int(written)], as: UTF8.self)
}

func base64Decode(_ text: Substring) -> [UInt8]? {
    let input = Array(text.utf8)
    guard !input.isEmpty, input.count % 4 == 0 else { return nil }
    var output = [UInt8](repeating: 0, count: input.count / 4 * 3)
    let written = EVP_DecodeBlock(&output, input, Int32(input.count))
    guard written >= 0 else { return nil }
    // EVP_DecodeBlock counts the padding as zero bytes.
    let padding = input.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
    guard padding <= 2 else { return nil }
    return Array(output[0..<(Int(written) - padding)])
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isSpace($0) })!
        return self[start...end]
    }
}
