import LiveLocation

/// An absolute `http://` or `https://` URL with a host: the one check every HTTP destination's URL
/// (webhook, Telegram, Traccar) goes through, at configuration time, so that a bad URL is a bad
/// configuration (exit 2, naming its key) rather than a failure later.
package struct HTTPURL: Sendable, Equatable, CustomStringConvertible {
    /// The URL as given.
    package let text: String
    /// The host: a name, an IPv4 address, or an IPv6 address in brackets.
    package let host: String
    package let isHTTPS: Bool
    /// The port: the URL's, else 80 for http:// and 443 for https://.
    package let port: Int
    /// The path and query to request (origin-form: `/hook?x=1`; `/` when the URL has no path),
    /// without the fragment.
    package let target: String
    /// The `user:password` before the host, percent-decoded, when there is one (sent as Basic
    /// authorization; never shown).
    package let userInfo: String?

    /// The host as the resolver takes it: an IPv6 address without its brackets.
    package let hostForLookup: String
    /// The `Host` header's value: the host, with the port unless it is the scheme's default.
    /// (Both made once: every request names them.)
    package let hostHeader: String

    /// - Throws: `HTTPURLError` saying what is wrong (the URL shown without its user:password part).
    package init(_ text: String) throws(HTTPURLError) {
        func fail(_ reason: String) -> HTTPURLError { HTTPURLError(url: Self.redacted(text), reason: reason) }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw fail("contains white space or a control character")
        }
        let lowered = text.lowercased()
        let secure: Bool
        if lowered.hasPrefix("https://") { secure = true } else if lowered.hasPrefix("http://") { secure = false } else {
            throw fail("not an http:// or https:// URL")
        }
        let rest = text.dropFirst(secure ? 8 : 7)
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var userInfo: Substring?
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
        }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw fail("an IPv6 host without its closing ']'") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after the IPv6 host") }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard host.count > (host.hasPrefix("[") ? 2 : 0) else { throw fail("no host") }
        var number = secure ? 443 : 80
        if let port {
            guard let given = Int(port), (1...65535).contains(given) else { throw fail("port must be 1-65535") }
            number = given
        }
        let pathAndQuery = rest[authority.endIndex...].prefix { $0 != "#" }
        self.text = text
        self.host = String(host)
        self.isHTTPS = secure
        self.port = number
        self.target = pathAndQuery.hasPrefix("/") ? String(pathAndQuery) : "/" + pathAndQuery
        self.userInfo = userInfo.map { percentDecoded($0) }
        hostForLookup = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : String(host)
        hostHeader = number == (secure ? 443 : 80) ? String(host) : "\(host):\(number)"
    }

    package var description: String { Self.redacted(text) }

    /// `url` as a receiver's identity (`Destination.identity`): the user name kept, as written
    /// (`https://alice@example.net/hook`), since it says whose the events are as much as the host
    /// does; the password left out (a secret, which may change without changing the receiver).
    /// A URL without a `user@` part is as given; one with an empty user name keeps its `@`.
    package static func identity(_ url: String) -> String {
        guard let parts = splitAtUserInfo(url) else { return url }
        return String(parts.scheme + parts.userInfo.prefix { $0 != ":" } + parts.fromAt)
    }

    /// `url` without any `user:password@` part, for messages and logs.
    package static func redacted(_ url: String) -> String {
        guard let parts = splitAtUserInfo(url) else { return url }
        return String(parts.scheme + "…" + parts.fromAt)
    }

    /// `url` cut around its `user:password` part: the scheme with its `://`, that part, and the
    /// rest from its `@` on; nil when the URL has none.
    private static func splitAtUserInfo(_ url: String) -> (scheme: Substring, userInfo: Substring, fromAt: Substring)? {
        guard let schemeEnd = url.firstUTF8Range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return nil }
        return (url[..<schemeEnd.upperBound], rest[..<at], rest[at...])
    }
}

/// `%XX` sequences replaced by their bytes (others kept as they are).
private func percentDecoded(_ text: Substring) -> String {
    let bytes = Array(text.utf8)
    var output: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
           let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
            output.append(value)
            index += 3
        } else {
            output.append(bytes[index])
            index += 1
        }
    }
    return String(decoding: output, as: UTF8.self)
}
