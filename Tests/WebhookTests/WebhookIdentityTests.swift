import Delivery
import Foundation
import Journal
import LiveLocation
import Testing
import TestSupport
import Webhook

/// Issue 29, item 9: a webhook URL that differs only by its user name is another receiver, with a
/// queue of its own (alice's queued events went out with bob's Basic authorization).
@Suite struct WebhookIdentityTests {
    static let alice = "http://alice:secret-a@127.0.0.1:9/hook"
    static let bob = "http://bob:secret-b@127.0.0.1:9/hook"

    func webhook(_ url: String) throws -> WebhookDestination {
        let secret = try #require(WebhookSecret(DaemonHarness.webhookKey.trimmingCharacters(in: .whitespacesAndNewlines)))
        return try WebhookDestination(configuration: WebhookConfiguration(url: url, secrets: [secret]))
    }

    @Test func theIdentityKeepsTheUserNameAndNeverThePassword() throws {
        let alice = try webhook(Self.alice), bob = try webhook(Self.bob)
        #expect(alice.identity == "webhook http://alice@127.0.0.1:9/hook")
        #expect(bob.identity == "webhook http://bob@127.0.0.1:9/hook")
        #expect(alice.identity != bob.identity)
        #expect(try webhook("http://alice:another-password@127.0.0.1:9/hook").identity == alice.identity,
                "a new password is the same receiver")
        // A URL without user info keeps the identity earlier versions gave it: its queue is not orphaned.
        let plain = try webhook("http://127.0.0.1:9/hook?to=x")
        #expect(plain.identity == "webhook http://127.0.0.1:9/hook?to=x")
    }

    /// The reproduction: events queued for alice while her receiver was down; the next run has bob's
    /// URL (the same but for the user): bob's queue must not hold alice's events.
    @Test func eventsQueuedForOneUserNeverGoOutWithAnothersURL() async throws {
        let directory = try Paths.temporaryDirectory("journal").path
        let alice = try webhook(Self.alice), bob = try webhook(Self.bob)
        let share = ShareID.random()
        let first = try Journal(directory: directory, destinations: [alice.identity: alice.queue], log: .silent)
        try await first.commit(ShareBatch(events: shareEvents(updates: 3, id: share), share: nil, through: 1))
        await first.close()

        let second = try Journal(directory: directory, destinations: [bob.identity: bob.queue], log: .silent)
        #expect(try await second.pending(bob.identity, after: 0, limit: 10).isEmpty)
        #expect(await second.leftoverQueues == [LeftoverQueue(identity: alice.identity, events: 5)])
        await second.close()
    }
}
