import GPSD
import Testing

@Suite struct GPSDEndpointTests {
    @Test func hostAloneGetsTheDefaultPort() {
        #expect(GPSDEndpoint(parsing: "gps.local") == GPSDEndpoint(host: "gps.local", port: 2947))
    }

    @Test func hostAndPort() {
        #expect(GPSDEndpoint(parsing: "127.0.0.1:40001") == GPSDEndpoint(host: "127.0.0.1", port: 40001))
    }

    @Test func bracketedIPv6WithAndWithoutPort() {
        #expect(GPSDEndpoint(parsing: "[::1]:2950") == GPSDEndpoint(host: "::1", port: 2950))
        #expect(GPSDEndpoint(parsing: "[fe80::1]") == GPSDEndpoint(host: "fe80::1", port: 2947))
        #expect(GPSDEndpoint(parsing: "::1") == GPSDEndpoint(host: "::1", port: 2947))
    }

    @Test(arguments: ["", ":2947", "host:", "host:0", "host:65536", "host:12a", "[::1", "[::1]x", "[host]:1",
                      "a b", "host:-1", "[::1]:"])
    func malformedEndpointsAreRejected(_ text: String) {
        #expect(GPSDEndpoint(parsing: text) == nil)
    }

    @Test func descriptionBracketsIPv6() {
        #expect(GPSDEndpoint.default.description == "localhost:2947")
        #expect(GPSDEndpoint(host: "::1", port: 3000).description == "[::1]:3000")
    }
}
