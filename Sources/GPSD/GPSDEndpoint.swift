/// Where gpsd listens: a host name or address and a TCP port.
package struct GPSDEndpoint: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Host name or address, without brackets (`localhost`, `127.0.0.1`, `::1`).
    package var host: String
    package var port: UInt16

    /// gpsd's default: `localhost:2947`.
    package static let `default` = GPSDEndpoint(host: "localhost", port: 2947)

    package init(host: String, port: UInt16 = 2947) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST`, `HOST:PORT`, `[IPV6]`, `[IPV6]:PORT` or a bare IPv6 address (`::1`, default
    /// port); nil for an empty host, a port outside 1...65535, or stray brackets or spaces.
    package init?(parsing text: String) {
        guard !text.isEmpty, !text.contains(where: { $0 == " " || $0 == "\t" || $0 == "/" }) else { return nil }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
            guard host.contains(":") else { return nil }
        } else if text.filter({ $0 == ":" }).count > 1 {
            host = Substring(text)  // a bare IPv6 address
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = Substring(text)
        }
        guard !host.isEmpty, !host.contains("[") && !host.contains("]") else { return nil }
        var port: UInt16 = 2947
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy(\.isASCII), portText.allSatisfy(\.isNumber),
                  portText.count <= 5, let value = UInt16(portText), value > 0 else { return nil }
            port = value
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with an IPv6 host in brackets (`[::1]:2947`).
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
