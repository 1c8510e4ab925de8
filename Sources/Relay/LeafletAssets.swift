#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// Leaflet, as Debian's libjs-leaflet installs it (`/usr/share/javascript/leaflet`), read once at
/// start and served by the relay under `/leaflet/` (no CDN: the page's Content-Security-Policy
/// allows scripts and styles from the relay only).
package struct LeafletAssets: Sendable {
    /// Debian's libjs-leaflet.
    package static let debianDirectory = "/usr/share/javascript/leaflet"

    /// The files by their path under `/leaflet/`, with their content type.
    package let files: [String: (type: String, bytes: [UInt8])]

    /// What it reads: the minified script (`leaflet.min.js`, else `leaflet.js`) served as
    /// `leaflet.js`, `leaflet.css`, and the images the stylesheet names.
    /// - Returns: nil when `directory` has no Leaflet (the page then draws its own sketch).
    package init?(directory: String) {
        func read(_ name: String) -> [UInt8]? {
            guard let file = try? FileDescriptor.openRegularFileForReading(directory + "/" + name) else { return nil }
            defer { file.close() }
            return try? file.readToEnd(limit: 2 << 20, path: directory + "/" + name)
        }
        guard let script = read("leaflet.min.js") ?? read("leaflet.js"), let style = read("leaflet.css") else { return nil }
        var files: [String: (type: String, bytes: [UInt8])] = [
            "leaflet.js": ("text/javascript; charset=utf-8", script), "leaflet.css": ("text/css; charset=utf-8", style),
        ]
        for image in ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"] {
            if let bytes = read("images/" + image) { files["images/" + image] = ("image/png", bytes) }
        }
        self.files = files
    }
}
