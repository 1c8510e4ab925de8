import Delivery
import Foundation
import HTTP
import Journal
import LiveLocation
import Testing
import TestSupport
import Webhook

/// Issue 29, item 9: the identity keeps a URL's user name (`HTTPURL.identity`); a queue an earlier
/// version named without it (`webhook http://…@host/path`) is taken over by the one webhook it can be.
@Suite struct WebhookFormerIdentityTests {
    static let alice = WebhookIdentityTests.alice
    static let bob = WebhookIdentityTests.bob

    func webhook(_ url: String) throws -> WebhookDestination { try WebhookIdentityTests().webhook(url) }

    @Test func onlyAURLWithAUserNamesAFormerIdentity() throws {
        #expect(try webhook("http://127.0.0.1:9/hook?to=x").queue.formerIdentities.isEmpty)
        #expect(try webhook(Self.alice).queue.formerIdentities == ["webhook http://…@127.0.0.1:9/hook"])
    }

    @Test(arguments: [
        ("https://alice:pw@example.net/hook", "https://alice@example.net/hook"),
        ("https://alice@example.net/hook", "https://alice@example.net/hook"),
        ("https://:pw@example.net/hook", "https://@example.net/hook"),
        ("https://a%40b:p%3Aw@example.net:8443/x?y=1#z", "https://a%40b@example.net:8443/x?y=1#z"),
        ("https://example.net/a@b", "https://example.net/a@b"),
        ("http://[::1]:9/hook", "http://[::1]:9/hook"),
    ])
    func aURLsIdentityIsItWithoutItsPassword(url: String, identity: String) {
        #expect(HTTPURL.identity(url) == identity)
    }

    /// A journal of an earlier version named alice's queue `webhook http://…@127.0.0.1:9/hook`: with
    /// alice configured alone, it is hers (state and all); with alice and bob, it cannot be told
    /// whose it was and stays a leftover.
    @Test func aQueueUnderTheFormerIdentityIsTakenOverOnlyByTheOneWebhookItCanBe() async throws {
        let alice = try webhook(Self.alice), bob = try webhook(Self.bob)
        let former = "webhook http://…@127.0.0.1:9/hook"
        let share = ShareID.random()
        let events = shareEvents(updates: 3, id: share)
        for both in [false, true] {
            let directory = try Paths.temporaryDirectory("journal").path
            let earlier = try Journal(directory: directory, destinations: [former: QueuePolicy()], log: .silent)
            try await earlier.commit(ShareBatch(events: events, share: nil, through: 1))
            let sent = try await earlier.pending(former, after: 0, limit: 1)
            earlier.acknowledge(former, position: try #require(sent.first).position, state: [7])
            await earlier.close()

            let lines = LogLines()
            var configured = [alice.identity: alice.queue]
            if both { configured[bob.identity] = bob.queue }
            let now = try Journal(directory: directory, destinations: configured, log: lines.logger)
            let forAlice = try await now.pending(alice.identity, after: 0, limit: 10)
            if both {
                #expect(forAlice.isEmpty)
                #expect(try await now.pending(bob.identity, after: 0, limit: 10).isEmpty)
                #expect(await now.leftoverQueues == [LeftoverQueue(identity: former, events: events.count - 1)])
                #expect(lines.all.contains { $0.contains("could be any of") }, "\(lines.all)")
            } else {
                #expect(forAlice.map(\.event) == Array(events.dropFirst()))
                #expect(forAlice.first?.destinationState == [7])
                #expect(await now.leftoverQueues.isEmpty)
                #expect(lines.all.contains { $0.contains("is now \(alice.identity)'s") }, "\(lines.all)")
            }
            await now.close()
        }
    }

    /// The share open when an earlier version stopped was started for the former identity: after
    /// the rename its next events still go to that receiver (not taken for one added since).
    @Test func theOpenSharesNextEventsFollowItsRenamedQueue() async throws {
        let alice = try webhook(Self.alice)
        let former = "webhook http://…@127.0.0.1:9/hook"
        let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)
        let share = ShareSnapshot(id: .random(), startedAt: start, expiresAt: start + .seconds(3600))
        let events = shareEvents(updates: 3, id: share.id)
        let directory = try Paths.temporaryDirectory("journal").path
        let earlier = try Journal(directory: directory, destinations: [former: QueuePolicy()], log: .silent)
        try await earlier.commit(ShareBatch(events: [events[0]], share: share, through: 1))
        await earlier.close()  // stopped with the share open

        let now = try Journal(directory: directory, destinations: [alice.identity: alice.queue], log: .silent)
        #expect(await now.activeShare?.id == share.id)
        try await now.commit(ShareBatch(events: [events[1]], share: share, through: 2))
        #expect(try await now.pending(alice.identity, after: 0, limit: 10).map(\.event) == [events[0], events[1]])
        #expect(await now.leftoverQueues.isEmpty)
        await now.close()
    }
}
