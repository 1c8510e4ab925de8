import FuzzChecks
import Testing

/// livelocd-relay's own reading of requests (routes, posts, the store, a viewer's stream, the
/// secrets file) on the inputs the fuzzer found or starts from.
@Suite struct RelayRequestFuzzRegressionTests {
    @Test("the relay holds its invariants on every recorded crash and seed",
          arguments: FuzzInputs.regressions("relay") + FuzzInputs.seeds("relay"))
    func relayInputHoldsInvariants(_ path: String) throws {
        #expect(RelayRequestFuzzCheck.violations(in: try FuzzInputs.bytes(path)) == [], "\(path)")
    }

    @Test("the seeds are read as the requests they are: the check does not pass by reading nothing")
    func seedsAreReadAsRequests() throws {
        let update = RelayRequestFuzzCheck.request(try FuzzInputs.bytes("Fuzz/corpus/relay/post-update.txt"))
        #expect(update.method == "POST" && update.path == "/api/v1/events" && update.body.count == 60)
        #expect(update.headers.contains { $0 == ("Link-Kind", "update") })
        let events = RelayRequestFuzzCheck.request(try FuzzInputs.bytes("Fuzz/corpus/relay/get-events-last-event-id.txt"))
        #expect(events.path == "/s/AAECAwQFBgcICQoLDA0ODw/events" && events.headers.contains { $0 == ("Last-Event-ID", "1") })
    }
}
