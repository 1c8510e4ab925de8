import SystemIO

/// A Telegram bot's token (`<bot id>:<secret>`, as @BotFather gives it). It is part of every Bot
/// API URL, so it is kept apart: its description is redacted, and `text` is used only to build a
/// request and to redact messages.
package struct BotToken: Sendable, Equatable, CustomStringConvertible {
    /// The token itself. Never log it: pass messages through `redacted(_:hiding:)`.
    package let text: String

    /// Accepts `digits:rest` where rest is letters, digits, `_` and `-` (what may stand in a URL
    /// path unescaped); nil otherwise.
    package init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 20,
              parts[0].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              !parts[1].isEmpty, parts[1].utf8.count <= 200,
              parts[1].utf8.allSatisfy({ byte in
                  (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                      || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
              })
        else { return nil }
        self.text = text
    }

    package var description: String { "<bot token>" }

    /// Reads the token from a file: one line (surrounding white space and a final newline ignored).
    ///
    /// - Parameter requirePrivate: refuse a file that its group or others may read (a file the
    ///   user names). systemd's credential files are private to the service already.
    /// - Throws: `TelegramError` naming the file (never its content).
    package static func load(fromFile path: String, requirePrivate: Bool = true) throws(TelegramError) -> BotToken {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.openForReading(path) } catch {
            throw .unreadableTokenFile(path: path, reason: shortReason(error))
        }
        defer { descriptor.close() }
        if requirePrivate {
            let mode: UInt32
            do { mode = try descriptor.permissions(path: path) } catch {
                throw .unreadableTokenFile(path: path, reason: shortReason(error))
            }
            guard mode & 0o044 == 0 else { throw .tokenFileTooOpen(path: path, mode: mode) }
        }
        let bytes: [UInt8]
        do { bytes = try descriptor.readToEnd(limit: 4096, path: path) } catch {
            throw .unreadableTokenFile(path: path, reason: shortReason(error))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == " " || $0 == "\t" })
        guard trimmed.count == 1, let token = BotToken(String(trimmed[0])) else { throw .invalidToken(path: path) }
        return token
    }
}

/// A system error's text without the path (the caller names the file once).
private func shortReason(_ error: any Error) -> String {
    if let error = error as? SystemError {
        var copy = error
        copy.target = nil
        return copy.description
    }
    return "\(error)"
}
