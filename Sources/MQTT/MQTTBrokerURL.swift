/// Where the broker is: `mqtt://HOST[:PORT]` (plain TCP, port 1883) or `mqtts://HOST[:PORT]` (TLS,
/// port 8883). IPv6 addresses in brackets: `mqtt://[::1]:1883`.
package struct MQTTBrokerURL: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: UInt16
    package var usesTLS: Bool

    package init(host: String, port: UInt16, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// Parses the URL.
    /// - Throws: `MQTTConfigurationError.badURL` with what is wrong (a scheme other than mqtt/mqtts, no
    ///   host, a bad port, a path, or credentials, which never go in a URL: use the user and password
    ///   file settings).
    package init(parsing text: String) throws(MQTTConfigurationError) {
        func bad(_ reason: String) -> MQTTConfigurationError { .badURL(text, reason: reason) }
        let rest: Substring
        if text.hasPrefix("mqtt://") {
            usesTLS = false
            rest = text.dropFirst(7)
        } else if text.hasPrefix("mqtts://") {
            usesTLS = true
            rest = text.dropFirst(8)
        } else {
            throw bad("the scheme must be mqtt:// or mqtts://")
        }
        var authority = rest
        if let slash = authority.firstIndex(of: "/") {
            guard authority[slash...] == "/" else { throw bad("a broker URL has no path") }
            authority = authority[..<slash]
        }
        guard !authority.contains("@") else {
            throw bad("credentials do not go in the URL: use the user and password file settings")
        }
        guard !authority.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "?" || $0 == "#" }) else {
            throw bad("unexpected characters")
        }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("unclosed [ in an IPv6 address") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw bad("expected :PORT after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw bad("no host") }
        if let portText {
            guard let number = UInt16(portText), number > 0 else { throw bad("the port must be 1-65535") }
            port = number
        } else {
            port = usesTLS ? 8883 : 1883
        }
    }

    package var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }
}
