import Relay
import Testing

/// Leaflet served by the relay from Debian's libjs-leaflet: every file the page names, from the
/// relay itself, compressed for a browser that accepts gzip.
@Suite(.enabled(if: LeafletAssets(directory: LeafletAssets.debianDirectory) != nil, "libjs-leaflet is not installed"))
struct LeafletAssetsTests {
    @Test func theRelayServesLeafletItselfGzippedWhenTheBrowserAcceptsIt() throws {
        let server = RelayServer(options: RelayServer.Options(host: "127.0.0.1", port: 0, secrets: [Array("leaflet-test-secret-0123456789abcdef".utf8)]))
        try server.start()
        defer { server.stop() }
        let plain = try LoopbackHTTP.request(port: server.port, "/leaflet/leaflet.js")
        #expect(plain.status == 200 && plain.header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(plain.text.contains("Leaflet") && plain.header("Content-Encoding") == nil)
        let compressed = try LoopbackHTTP.request(port: server.port, "/leaflet/leaflet.js", headers: ["Accept-Encoding: gzip, deflate, br"])
        #expect(compressed.status == 200 && compressed.header("Content-Encoding") == "gzip")
        #expect(compressed.body.starts(with: [0x1f, 0x8b]) && compressed.body.count * 2 < plain.body.count,
                "\(compressed.body.count) bytes gzipped, \(plain.body.count) plain")
        for path in ["/leaflet/leaflet.css", "/leaflet/images/layers.png"] {
            #expect(try LoopbackHTTP.request(port: server.port, path).status == 200, "\(path)")
        }
        #expect(try LoopbackHTTP.request(port: server.port, "/leaflet/../secret").status == 404)
        #expect(try LoopbackHTTP.request(port: server.port, "/leaflet/leaflet.js.map").status == 404)
    }
}
