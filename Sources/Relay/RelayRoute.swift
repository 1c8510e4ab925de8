import ShareLink

/// What a GET (or HEAD) path asks the relay for: the one place a viewer's URL is read.
package enum RelayRoute: Sendable, Equatable {
    case script
    case style
    case health
    /// A file of Leaflet's, by its path under `/leaflet/`.
    case leaflet(String)
    /// A share's page, by its id (22 base64url characters, 16 bytes).
    case page(id: String)
    /// A share's Server-Sent Events.
    case events(id: String)
    /// Anything else: one uniform 404.
    case notFound

    package init(path: String) {
        switch path {
        case "/viewer.js": self = .script; return
        case "/viewer.css": self = .style; return
        case "/healthz": self = .health; return
        default: break
        }
        if path.hasPrefix("/leaflet/") {
            self = .leaflet(String(path.dropFirst("/leaflet/".count)))
            return
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts.count <= 4, parts[0].isEmpty, parts[1] == "s",
              Base64URL.decode(parts[2])?.count == ShareLinkSecrets.idByteCount else {
            self = .notFound
            return
        }
        let id = String(parts[2])
        if parts.count == 3 { self = .page(id: id) } else if parts[3] == "events" { self = .events(id: id) } else { self = .notFound }
    }

    /// The path that asks for this route (nil for `notFound`).
    package var path: String? {
        switch self {
        case .script: "/viewer.js"
        case .style: "/viewer.css"
        case .health: "/healthz"
        case .leaflet(let file): "/leaflet/" + file
        case .page(let id): "/s/" + id
        case .events(let id): "/s/\(id)/events"
        case .notFound: nil
        }
    }

    /// `Last-Event-ID`: the seq a reconnecting viewer had; 0 when absent or not a number.
    package static func lastEventID(_ header: String?) -> UInt64 {
        header.flatMap(UInt64.init) ?? 0
    }
}
