import Relay
import Testing

/// The relay's tile setting: what goes into the page and its Content-Security-Policy.
@Suite struct MapTilesTests {
    @Test func aTemplateGivesItsOriginToThePolicyAndAnythingElseIsRefused() {
        #expect(MapTiles.openStreetMap.cspSource == "https://tile.openstreetmap.org")
        #expect(MapTiles(template: "https://{s}.tiles.example.net/{z}/{x}/{y}.png", attribution: "x")?.cspSource == "https://*.tiles.example.net")
        #expect(MapTiles(template: "http://127.0.0.1:8080/{z}/{x}/{y}.png", attribution: "x")?.cspSource == "http://127.0.0.1:8080")
        #expect(MapTiles.none.cspSource == nil)
        for bad in ["ftp://tiles.example.net/{z}/{x}/{y}.png", "https://tiles.example.net/{z}/{x}.png", "//tiles.example.net/{z}/{x}/{y}.png",
                    "https://tiles.example.net;script-src *//{z}/{x}/{y}", "https://a.{s}.example.net/{z}/{x}/{y}.png",
                    "https://tiles.example.net/{z}/{x}/{y}.png\" onload=\"x", "https:///{z}/{x}/{y}.png"] {
            #expect(MapTiles(template: bad, attribution: "x") == nil, "\(bad)")
        }
    }
}
