import Foundation

/// Writes `text` to `url` readable by its owner only (mode 0600), as the daemon requires of every
/// secret file (webhook keys, passwords, tokens).
public func writeSecretFile(_ text: String, to url: URL) throws {
    try text.write(to: url, atomically: true, encoding: .utf8)
    guard chmod(url.path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
