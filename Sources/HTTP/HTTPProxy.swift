import Signing

/// The proxy for http:// requests, from the environment as libcurl reads it: `http_proxy` (lower
/// case only: a CGI server sets `HTTP_PROXY` from a request's `Proxy:` header, "httpoxy"), unless
/// the host is in `no_proxy` (or `NO_PROXY`): a comma-separated list of host names, domains (a
/// name matches its subdomains; a leading dot is allowed) and IP addresses, or `*` for all.
/// A proxy URL without a scheme is http://; without a port, 1080 (libcurl's default). Its
/// `user:password@` is sent as `Proxy-Authorization: Basic`.
struct HTTPProxy: Equatable, Sendable {
    /// The proxy's host and port (the host as the resolver takes it).
    var host: String
    var port: Int
    /// `user:password` for the proxy, percent-decoded.
    var userInfo: String?
    /// The `no_proxy` entries, lower case, without leading dots; `*` matches every host.
    var exceptions: [String]

    /// The proxy the environment names, or nil (no `http_proxy`, or one that is not an http:// URL).
    init?(environment: [String: String]) {
        guard var text = environment["http_proxy"], !text.isEmpty else { return nil }
        if !text.contains("://") { text = "http://" + text }
        guard text.lowercased().hasPrefix("http://") else { return nil }
        var withPort = text
        if let parsed = try? HTTPURL(text), !Self.hasExplicitPort(text) {
            withPort = "http://" + (parsed.userInfo.map { _ in Self.userInfoPart(of: text) } ?? "") + parsed.host + ":1080"
        }
        guard let url = try? HTTPURL(withPort) else { return nil }
        host = url.hostForLookup
        port = url.port
        userInfo = url.userInfo
        let list = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        exceptions = list.split(separator: ",").map { entry in
            var name = entry.trimmingWhiteSpace().lowercased()
            while name.hasPrefix(".") { name.removeFirst() }
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            return name
        }.filter { !$0.isEmpty }
    }

    /// Whether a request to `host` (as the resolver takes it) goes through the proxy.
    func applies(to host: String) -> Bool {
        let host = host.lowercased()
        return !exceptions.contains { $0 == "*" || host == $0 || host.hasSuffix("." + $0) }
    }

    /// `Proxy-Authorization` for the proxy's credentials, if any.
    var authorizationHeader: String? { userInfo.map { "Proxy-Authorization: Basic \(Base64.encode($0.utf8))" } }

    private static func hasExplicitPort(_ url: String) -> Bool {
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostPart = authority.split(separator: "@").last ?? authority
        if hostPart.hasPrefix("[") { return hostPart.contains("]:") }
        return hostPart.contains(":")
    }

    private static func userInfoPart(of url: String) -> String {
        let rest = url.drop { $0 != "/" }.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return "" }
        return String(authority[...at])
    }
}

private extension Substring {
    func trimmingWhiteSpace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
