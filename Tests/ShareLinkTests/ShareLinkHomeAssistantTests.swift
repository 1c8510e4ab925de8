import Foundation
import ShareLink
import Testing
import TestSupport

/// The share link on Home Assistant: livelocd with a `link` destination (the real relay) and an
/// MQTT destination in the homeassistant format (a real mosquitto), on loopback.
@Suite(.enabled(if: Mosquitto.isAvailable)) struct ShareLinkHomeAssistantTests {
    @Test func theTrackersAttributesCarryTheShareLinkWhileTheShareIsActive() async throws {
        try await Mosquitto.with { broker in
            let subscriber = try await MQTTSubscriber(port: broker.port, topics: ["livelocd/van/attributes"])
            try await subscriber.waitUntilSubscribed()
            let harness = try DaemonHarness()
            let secretFile = try harness.secretFile("link-secret", containing: ShareLinkEndToEndTests.secret + "\n")
            let (relay, port) = try await ShareLinkEndToEndTests.startRelay(secretFile: secretFile)
            defer { relay.terminate(); relay.waitUntilExit() }
            let daemon = try await harness.launch(log: ShareLinkDaemonTests.drive, speed: 5, extra: [
                "--link.relay_url", "http://127.0.0.1:\(port)", "--link.secret_file", secretFile.path,
                "--mqtt.url", broker.url, "--mqtt.format", "homeassistant", "--mqtt.device", "van"])
            _ = try await harness.liveloc(["start", "--duration", "15m"])
            try await subscriber.waitForMessages(count: 1) { jsonObject($0.payload)?["share_link"] != nil }
            let link = try #require(try await ShareLinkDaemonTests.shareLink(harness))
            let attributes = subscriber.messages.compactMap { jsonObject($0.payload) }
            let linked = attributes.filter { $0["share_link"] != nil }
            #expect(linked.allSatisfy { $0["share_link"] as? String == link }, "\(linked)")
            // The link opens the share: its key opens what the relay holds.
            let secrets = try #require(ShareLinkSecrets(link: link))
            let stream = try LoopbackHTTP.request(port: port, "/s/\(secrets.idText)/events", timeoutSeconds: 1)
            let first = try #require(SSEEvent.parse(stream.text).first)
            #expect(LinkSealing.open(Base64URL.decode(first.data) ?? [], secrets: secrets, seq: first.id) != nil)

            #expect(try await harness.liveloc(["stop"]).status == 0)
            // The final update (inactive) leaves it out: the retained attributes hold no key after the end.
            try await daemon.waitForLine { jsonObject($0)?["event"] as? String == "ended" }
            var lastHasLink = true
            for _ in 0..<100 where lastHasLink {
                try await Task.sleep(for: .milliseconds(100))
                lastHasLink = subscriber.messages.compactMap { jsonObject($0.payload) }.last?["share_link"] != nil
            }
            #expect(!lastHasLink)
            daemon.send(SIGTERM)
            #expect(await daemon.waitForExit() == 0, "\(daemon.lines(.stderr).suffix(40).joined(separator: "\n"))")
            #expect(!daemon.lines(.stderr).contains { $0.contains(secrets.keyText) })
        }
    }
}
