import Delivery
import Journal
import Webhook
import Foundation
import LiveLocation
import Testing
import TestSupport

@Suite("Webhook sink", .serialized, .timeLimit(.minutes(1)))
struct WebhookSinkTests {
    @Test func requestIsSignedStandardWebhooksPOSTOfTheEventJSON() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver()
        defer { receiver.stop() }
        let event = shareEvents(updates: 1)[0]
        try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(event)
                await waitForStatus(sink) { $0.delivered == 1 }
            }
        }
        let records = receiver.records()
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.signatureValid)
        #expect(record.timestampFresh)
        #expect(record.id == webhookID(event))
        #expect(record.body == String(event.jsonLine.dropLast()))
        #expect(record.contentType == "application/json")
        #expect(record.signature.hasPrefix("v1,"))
    }

    @Test func everyConfiguredSecretSignsSoReceiversCanRotate() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver()  // knows only the fixture's secret
        defer { receiver.stop() }
        var configuration = try fixture.configuration(url: receiver.url)
        configuration.secrets = [try #require(WebhookSecret(WebhookFixture.newSecretText()))] + configuration.secrets
        try await fixture.withSink(configuration) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                await waitForStatus(sink) { $0.delivered == 1 }
            }
        }
        let record = try #require(receiver.records().first)
        #expect(record.signature.split(separator: " ").count == 2)
        #expect(record.signatureValid)
    }

    @Test func eventsQueuedWhileReceiverIsDownArriveInOrderExactlyOnceAfterDedupe() async throws {
        let fixture = try WebhookFixture()
        let (port, url) = try await fixture.closedPort()
        let events = shareEvents(updates: 20)
        try await fixture.withSink(fixture.configuration(url: url)) { sink in
            try await whileRunning(sink) {
                for event in events { try await sink.deliver(event) }
                let failing = await waitForStatus(sink) { $0.failedAttempts >= 2 }
                #expect(failing.pending == events.count)
                let receiver = try await fixture.startReceiver(port: port)
                defer { receiver.stop() }
                let status = await waitForStatus(sink) { $0.pending == 0 }
                #expect(status.delivered == events.count)
                #expect(receiver.deliveries().map(\.id) == events.map(webhookID))
                #expect(receiver.records().allSatisfy { $0.signatureValid })
            }
        }
    }

    @Test func serverErrorsAreRetriedUntilA2xx() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["500", "502", "503"])
        defer { receiver.stop() }
        let event = shareEvents(updates: 1)[0]
        let status = try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(event)
                return await waitForStatus(sink) { $0.delivered == 1 }
            }
        }
        #expect(receiver.records().map(\.response) == ["500", "502", "503", "200"])
        #expect(Set(receiver.records().map(\.id)) == [webhookID(event)])
        #expect(status.failedAttempts == 3)
        #expect(status.lastError == nil)
    }

    @Test func retryAfterOn429IsHonoured() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["429:2"])
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                await waitForStatus(sink) { $0.delivered == 1 }
            }
        }
        let records = receiver.records()
        try #require(records.count == 2)
        // The backoff alone would be at most 20 ms.
        #expect(records[1].received - records[0].received >= 2.0)
    }

    @Test func answerSlowerThanTheTimeoutIsAbandonedAndRetried() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["drip:4"])
        defer { receiver.stop() }
        let elapsed = try await fixture.withSink(fixture.configuration(url: receiver.url, timeout: .milliseconds(600))) { sink in
            let started = ContinuousClock.now
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                await waitForStatus(sink) { $0.delivered == 1 }
            }
            return ContinuousClock.now - started
        }
        #expect(receiver.records().map(\.response) == ["drip:4", "200"])
        #expect(Set(receiver.records().map(\.id)).count == 1)
        #expect(receiver.deliveries().count == 1)
        #expect(elapsed < .seconds(4))  // the dripped answer alone takes 4 s
        #expect(fixture.log.contains("timed out"))
    }

    @Test func refusedConnectionIsRetried() async throws {
        let fixture = try WebhookFixture()
        let (port, url) = try await fixture.closedPort()
        try await fixture.withSink(fixture.configuration(url: url)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                let failing = await waitForStatus(sink) { $0.failedAttempts >= 1 }
                #expect(failing.lastError?.contains("onnect") == true)
                let receiver = try await fixture.startReceiver(port: port)
                defer { receiver.stop() }
                let status = await waitForStatus(sink) { $0.delivered == 1 }
                #expect(status.delivered == 1)
            }
        }
    }

    @Test func redirectIsNotFollowedButRetriedAsAFailure() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["301"])
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(shareEvents(updates: 1)[0])
                await waitForStatus(sink) { $0.delivered == 1 }
            }
        }
        let records = receiver.records()
        #expect(records.map(\.response) == ["301", "200"])
        #expect(records.allSatisfy { $0.path == "/hook" })
        #expect(fixture.log.contains("redirect not followed"))
    }

    @Test func goneDisablesTheEndpointAndKeepsTheOutbox() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["410"])
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                let events = shareEvents(updates: 2)
                try await sink.deliver(events[0])
                let disabled = await waitForStatus(sink) { $0.disabled }
                #expect(disabled.state == "disabled")
                try await sink.deliver(events[1])
                try await Task.sleep(for: .milliseconds(300))
                #expect(await sink.status.pending == 2)
            }
        }
        #expect(receiver.records().count == 1)
        #expect(fixture.log.contains("410"))
    }

    @Test func permanentClientErrorDropsAnUpdateButNeverAFinalEvent() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["400", "422", "400"])
        defer { receiver.stop() }
        let events = shareEvents(updates: 1)
        let status = try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            try await whileRunning(sink) {
                for event in events { try await sink.deliver(event) }
                return await waitForStatus(sink) { $0.pending == 0 }
            }
        }
        #expect(status.dropped == 1)
        #expect(receiver.deliveries().map(\.id) == events.dropFirst().map(webhookID))
    }

    @Test func newSinkOnTheSameOutboxResumesWithTheSameWebhookIDs() async throws {
        let fixture = try WebhookFixture()
        let events = shareEvents(updates: 5)
        let failingReceiver = try await fixture.startReceiver(fallback: "503")
        let firstAttempts: [String]
        do {
            try await fixture.withSink(fixture.configuration(url: failingReceiver.url)) { sink in
                try await whileRunning(sink) {
                    for event in events { try await sink.deliver(event) }
                    await waitForStatus(sink) { $0.failedAttempts >= 2 }
                }
            }
            firstAttempts = failingReceiver.records().map(\.id)
        }
        let port = failingReceiver.port
        failingReceiver.stop()
        #expect(!firstAttempts.isEmpty)
        #expect(Set(firstAttempts) == [webhookID(events[0])])

        let receiver = try await fixture.startReceiver(port: port)
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url)) { restarted in
            #expect(await restarted.status.pending == events.count)
            try await whileRunning(restarted) {
                await waitForStatus(restarted) { $0.pending == 0 }
            }
        }
        #expect(receiver.deliveries().map(\.id) == events.map(webhookID))
        #expect(fixture.log.contains("resuming"))
    }

    @Test func latestPolicyDeliversNewestPositionPromptlyAfterOutageThenFinalUpdateAndEnded() async throws {
        let fixture = try WebhookFixture()
        let (port, url) = try await fixture.closedPort()
        let events = shareEvents(updates: 50)
        let updates = events.dropLast(2)
        try await fixture.withSink(fixture.configuration(url: url, backlog: .latest)) { sink in
            try await whileRunning(sink) {
                for event in updates { try await sink.deliver(event) }
                let queued = await waitForStatus(sink) { $0.failedAttempts >= 1 }
                #expect(queued.dropped >= 48)
                let receiver = try await fixture.startReceiver(port: port)
                defer { receiver.stop() }
                let started = ContinuousClock.now
                await waitForStatus(sink) { $0.pending == 0 }
                #expect(ContinuousClock.now - started < .seconds(2))
                let delivered = receiver.deliveries().map(\.id)
                // The first update may have been in flight when the others were queued: never dropped then.
                #expect(delivered.count <= 2)
                #expect(delivered.last == webhookID(updates.last!))

                for event in events.suffix(2) { try await sink.deliver(event) }
                await waitForStatus(sink) { $0.pending == 0 }
                #expect(Array(receiver.deliveries().map(\.id).suffix(2)) == events.suffix(2).map(webhookID))
            }
        }
    }

    @Test func latestPolicyFinalUpdateSupersedesQueuedUpdatesButKeepsEnded() async throws {
        let fixture = try WebhookFixture()
        let events = shareEvents(updates: 10)
        let receiver = try await fixture.startReceiver()
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url, backlog: .latest)) { sink in
            for event in events { try await sink.deliver(event) }  // not running yet: all queued
            #expect(await sink.status.dropped == 10)
            try await whileRunning(sink) {
                await waitForStatus(sink) { $0.pending == 0 }
            }
        }
        #expect(receiver.deliveries().map(\.id) == events.suffix(2).map(webhookID))
    }

    @Test func outboxBoundDropsOldestNonFinalUpdatesAndCountsThem() async throws {
        let fixture = try WebhookFixture()
        let events = shareEvents(updates: 10)
        let receiver = try await fixture.startReceiver()
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url, maxEvents: 5)) { sink in
            for event in events { try await sink.deliver(event) }  // not running yet: all queued
            let queued = await sink.status
            #expect(queued.pending == 5)
            #expect(queued.dropped == 7)
            #expect(fixture.log.contains("queue over its bound"))
            try await whileRunning(sink) {
                await waitForStatus(sink) { $0.pending == 0 }
            }
        }
        #expect(receiver.deliveries().map(\.id) == events.suffix(5).map(webhookID))
    }

    @Test func finalUpdatesAndEndedStayEvenBeyondTheBound() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver()
        defer { receiver.stop() }
        let queued = try await fixture.withSink(fixture.configuration(url: receiver.url, maxEvents: 2)) { sink in
            let shares = (0..<3).map { _ in shareEvents(updates: 0) }  // final update + ended each
            for event in shares.joined() { try await sink.deliver(event) }
            return await sink.status
        }
        #expect(queued.pending == 6)
        #expect(queued.dropped == 0)
    }

    @Test func deliverReturnsWhileAnAttemptIsInFlight() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["drip:5"])
        defer { receiver.stop() }
        let events = shareEvents(updates: 2)
        try await fixture.withSink(fixture.configuration(url: receiver.url, timeout: .seconds(30))) { sink in
            try await whileRunning(sink) {
                try await sink.deliver(events[0])
                _ = await receiver.waitForRecords { $0.count == 1 }
                let started = ContinuousClock.now
                try await sink.deliver(events[1])
                #expect(ContinuousClock.now - started < .milliseconds(500))
                #expect(await sink.status.pending == 2)
            }
        }
    }

    @Test func cancellingTheLoopAbortsTheAttemptInFlight() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["drip:20"])
        defer { receiver.stop() }
        try await fixture.withSink(fixture.configuration(url: receiver.url, timeout: .seconds(60))) { sink in
            try await sink.deliver(shareEvents(updates: 1)[0])
            let loop = Task { try await sink.run() }
            _ = await receiver.waitForRecords { $0.count == 1 }
            let cancelled = ContinuousClock.now
            loop.cancel()
            try await loop.value
            #expect(ContinuousClock.now - cancelled < .seconds(3))
            #expect(await sink.status.pending == 1)
        }
    }

    @Test func drainedReturnsOnceEveryQueuedEventIsAcknowledged() async throws {
        let fixture = try WebhookFixture()
        let receiver = try await fixture.startReceiver(script: ["500", "500"])
        defer { receiver.stop() }
        let events = shareEvents(updates: 3)
        try await fixture.withSink(fixture.configuration(url: receiver.url)) { sink in
            for event in events { try await sink.deliver(event) }
            try await whileRunning(sink) {
                await sink.drained()
                #expect(await sink.status.pending == 0)
            }
        }
        #expect(receiver.deliveries().map(\.id) == events.map(webhookID))
    }

    @Test func secondSinkOnALockedOutboxFailsLoudly() async throws {
        let fixture = try WebhookFixture()
        let configuration = try fixture.configuration(url: "http://127.0.0.1:9/hook")
        try await fixture.withSink(configuration) { _ in
            #expect(throws: JournalError.self) { _ = try fixture.sink(configuration) }
        }
    }

    @Test func outboxThatCannotBeCreatedFailsLoudly() throws {
        let fixture = try WebhookFixture()
        let configuration = try fixture.configuration(url: "http://127.0.0.1:9/hook")
        #expect {
            _ = try fixture.sink(configuration, journalDirectory: fixture.directory.appendingPathComponent("missing/dir").path)
        } throws: { error in
            "\(error)".hasPrefix("journal: mkdir")
        }
    }
}
