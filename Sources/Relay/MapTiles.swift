/// Where the viewer page's map gets its tiles: a tile server's URL template, or none.
package enum MapTiles: Sendable, Equatable {
    /// No tiles: the map draws a grid, a scale and the trail, and the position is text; nothing is
    /// fetched from anywhere but the relay.
    case none
    /// `template` (`https://tile.example.net/{z}/{x}/{y}.png`, `{s}` for a subdomain) and the
    /// attribution its licence asks for, shown on the map as text.
    case url(template: String, attribution: String)

    /// OpenStreetMap's standard tiles, as its tile usage policy asks: attributed, no bulk
    /// fetching (a viewer's browser fetches what it shows), the relay's page as the referrer
    /// origin (`Referrer-Policy: strict-origin`).
    package static let openStreetMap = MapTiles.url(template: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
                                                    attribution: "© OpenStreetMap contributors")

    /// `template` checked: http:// or https://, a host of letters, digits, `.`, `-`, `{s}` and an
    /// optional port, `{z}`, `{x}` and `{y}` in it, no space, quote or angle bracket anywhere (it
    /// goes into the page and its Content-Security-Policy).
    /// - Returns: nil when it is not such a template.
    package init?(template: String, attribution: String) {
        guard Self.origin(of: template) != nil, ["{z}", "{x}", "{y}"].allSatisfy(template.contains),
              !template.contains(where: { $0.isWhitespace || "\"'<>`\\;,".contains($0) }) else { return nil }
        self = .url(template: template, attribution: attribution)
    }

    /// The origin the tiles come from as a CSP source (`https://tile.example.net`, `https://*.example.net`
    /// for `{s}`); nil for none.
    package var cspSource: String? {
        guard case .url(let template, _) = self else { return nil }
        return Self.origin(of: template)
    }

    private static func origin(of template: String) -> String? {
        for scheme in ["https://", "http://"] where template.hasPrefix(scheme) {
            let host = template.dropFirst(scheme.count).prefix { $0 != "/" }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]")
            let source = String(host).replacing("{s}", with: "*")
            guard !source.isEmpty, source.allSatisfy({ allowed.contains($0) || $0 == "*" }),
                  !source.dropFirst().contains("*") else { return nil }
            return scheme + source
        }
        return nil
    }
}
