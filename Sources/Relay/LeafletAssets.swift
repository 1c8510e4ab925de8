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

    /// A file as served: its content type, its bytes, and the gzip-compressed bytes Debian ships
    /// beside it (`NAME.gz`), for a browser that accepts them (the script: 39 KB instead of 141 KB).
    package struct File: Sendable {
        package var type: String
        package var bytes: [UInt8]
        package var gzip: [UInt8]?
    }

    /// The files by their path under `/leaflet/`.
    package let files: [String: File]

    /// What it reads: the minified script (`leaflet.min.js`, else `leaflet.js`) served as
    /// `leaflet.js`, `leaflet.css`, their `.gz`, and the images the stylesheet names.
    /// - Returns: nil when `directory` has no Leaflet (the page then draws its own sketch).
    package init?(directory: String) {
        func read(_ name: String) -> [UInt8]? {
            guard let file = try? FileDescriptor.openRegularFileForReading(directory + "/" + name) else { return nil }
            defer { file.close() }
            return try? file.readToEnd(limit: 2 << 20, path: directory + "/" + name)
        }
        let scriptName = read("leaflet.min.js") != nil ? "leaflet.min.js" : "leaflet.js"
        guard let script = read(scriptName), let style = read("leaflet.css") else { return nil }
        var files: [String: File] = [
            "leaflet.js": File(type: "text/javascript; charset=utf-8", bytes: script, gzip: read(scriptName + ".gz")),
            "leaflet.css": File(type: "text/css; charset=utf-8", bytes: style, gzip: read("leaflet.css.gz")),
        ]
        for image in ["layers.png", "layers-2x.png", "marker-icon.png", "marker-icon-2x.png", "marker-shadow.png"] {
            if let bytes = read("images/" + image) { files["images/" + image] = File(type: "image/png", bytes: bytes) }
        }
        self.files = files
    }
}
