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
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
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
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { throw fail("port must be 1-65535") }
        }
        self.text = text
        self.host = String(host)
        self.isHTTPS = secure
    }

    package var description: String { Self.redacted(text) }

    /// `url` without any `user:password@` part, for messages and logs.
    package static func redacted(_ url: String) -> String {
        guard let schemeEnd = url.firstUTF8Range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let endsAuthority: (Character) -> Bool = { $0 == "/" || $0 == "?" || $0 == "#" }
        let authorityEnd = rest.firstIndex(where: endsAuthority) ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        return String(url[..<schemeEnd.upperBound]) + "…@" + String(rest[rest.index(after: at)...])
    }
}
