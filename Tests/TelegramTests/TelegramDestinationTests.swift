import Delivery
import Foundation
import LiveLocation
import Locking
import Pipeline
import Telegram
import Testing
import TestSupport

/// The Telegram destination through the pipeline's runner and journal, against the loopback Bot API
/// contract server (which answers 429 to anything faster than the published flood limits).
@Suite("Telegram destination", .serialized, .timeLimit(.minutes(2)))
struct TelegramDestinationTests {
    @Test func aWholeShareIsOneLiveLocationEditedWithinTheRateThenStoppedAtTheFinalPosition() async throws {
        let harness = try await TelegramHarness()
        let id = ShareID.random()
        let events = telegramShare(id, updates: 25)
        let began = ContinuousClock.now
        try await harness.commit(Array(events.prefix(25)), every: .milliseconds(100))
        try await harness.commit(Array(events.suffix(2)))
        // 2.5 s of updates, longer on a loaded machine (each sleep may overrun): at most one edit a
        // second over the time they really took, plus the final.
        let updatesLasted = Double((ContinuousClock.now - began).components.seconds) + 1
        let calls = await harness.api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        let status = await harness.waitForStatus { $0.pending == 0 }
        await harness.stop()

        #expect(calls.filter { $0.method == "sendLocation" }.count == 1)
        let send = try #require(calls.first)
        #expect(send.method == "sendLocation")
        #expect(send.params["live_period"] == "900")
        #expect(send.params["chat_id"] == "42")
        #expect(abs((send.number("latitude") ?? 0) - 48.1001) < 1e-9)
        #expect(send.number("horizontal_accuracy") == 4)
        #expect(send.params["heading"] == "360")
        // Every call within the flood limit: none answered 429, at least 1 s apart.
        #expect(calls.allSatisfy { $0.status == 200 })
        for (earlier, later) in zip(calls, calls.dropFirst()) { #expect(later.received - earlier.received >= 0.99) }
        let edits = calls.filter { $0.method == "editMessageLiveLocation" }
        #expect(edits.count >= 2 && Double(edits.count) <= updatesLasted + 2, "\(edits.count) edits over \(updatesLasted) s")
        #expect(edits.allSatisfy { $0.params["message_id"] == "1" })
        // The last edit shows the final position, then the live location is stopped.
        guard case .updated(_, _, let final) = events[events.count - 2] else { Issue.record("no final update"); return }
        #expect(edits.last?.number("latitude") == final.latitude)
        #expect(calls.last?.method == "stopMessageLiveLocation")
        #expect(calls.last?.params["message_id"] == "1")
        #expect(status?.state == .active)
        #expect(status?.lastError == nil)
        #expect(!harness.log.all.contains { $0.contains(TelegramHarness.token) })
    }

    /// An extended share asks for a longer live_period; a refusal of that alone keeps the message:
    /// the next update moves it with a plain edit, and the end stops it.
    @Test func aRefusedLongerLivePeriodKeepsTheMessageAndTheNextUpdateMovesIt() async throws {
        let harness = try await TelegramHarness(script: ["auto", "400"])
        let id = ShareID.random()
        let first = telegramShare(id, updates: 1, end: false)
        let extended = telegramShare(id, updates: 3, from: 2, duration: .seconds(1800))
        try await harness.commit(first)
        await harness.api.waitForCalls { $0.contains { $0.method == "sendLocation" && $0.status == 200 } }
        try await harness.commit(Array(extended.prefix(1)))
        await harness.api.waitForCalls { $0.contains { $0.method == "editMessageLiveLocation" && $0.status == 400 } }
        try await harness.commit(Array(extended.dropFirst()))
        let calls = await harness.api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        await harness.stop()

        let refused = try #require(calls.first { $0.status == 400 })
        #expect(refused.params["live_period"] == "3600")
        let after = calls.drop { $0 != refused }.dropFirst()
        #expect(after.contains { $0.method == "editMessageLiveLocation" && $0.status == 200 && $0.params["live_period"] == nil },
                "\(calls)")
        #expect(after.last?.method == "stopMessageLiveLocation" && after.last?.status == 200)
        #expect(calls.filter { $0.method == "sendLocation" }.count == 1)
        #expect(harness.log.all.contains { $0.contains("refused the longer live_period") })
    }

    @Test func aRestartedDestinationGoesOnEditingTheSameMessage() async throws {
        let harness = try await TelegramHarness()
        let id = ShareID.random()
        let events = telegramShare(id, updates: 6)
        try await harness.commit(Array(events.prefix(2)), every: .milliseconds(100))
        await harness.api.waitForCalls { $0.contains { $0.method == "sendLocation" && $0.status == 200 } }
        await harness.waitForStatus { $0.pending == 0 }
        await harness.stopRunner()
        try await Task.sleep(for: .seconds(1))  // a restart takes longer than Telegram's interval

        try harness.startRunner()
        try await harness.commit(Array(events.dropFirst(2).prefix(4)), every: .milliseconds(300))
        try await harness.commit(Array(events.suffix(2)))
        let calls = await harness.api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        await harness.stop()

        #expect(calls.filter { $0.method == "sendLocation" }.count == 1)
        let afterRestart = calls.dropFirst()
        #expect(afterRestart.contains { $0.method == "editMessageLiveLocation" && $0.status == 200 })
        #expect(afterRestart.allSatisfy { $0.params["message_id"] == "1" })
        #expect(calls.last?.method == "stopMessageLiveLocation")
    }

    /// Pacing runs on the destination's clock (here the test's, moved by hand): after an answer, a
    /// request to a group waits 3 s of it (a private chat 1 s); an update that comes earlier is
    /// answered "not yet", with what is left of the wait.
    @Test(arguments: [(TelegramChat.id(-1001234567890), Duration.seconds(3)), (.id(42), .seconds(1))])
    func requestsArePacedOnTheDestinationsClock(_ chat: TelegramChat, _ interval: Duration) async throws {
        let directory = try Paths.temporaryDirectory("telegram-pacing")
        let api = try await BotAPIServer.start(token: TelegramHarness.token, records: directory.appendingPathComponent("calls.jsonl"))
        defer { api.stop() }
        let clock = Locked(ContinuousClock.now)
        let configuration = try TelegramConfiguration(token: try #require(BotToken(TelegramHarness.token)), chat: chat, apiURL: api.apiURL)
        let destination = try TelegramDestination(configuration: configuration, log: LogLines().logger, now: { clock.withLock { $0 } })
        let events = telegramShare(.random(), updates: 3, end: false)
        func send(_ index: Int, state: [UInt8]?) async -> DeliveryOutcome? {
            await destination.send(QueuedEvent(position: Int64(index + 1), event: events[index], json: [], destinationState: state)).outcome()
        }
        func wait(_ outcome: DeliveryOutcome?) -> Duration? { if case .notYet(let after) = outcome { after } else { nil } }

        guard case .delivered(let message?) = await send(0, state: nil) else { Issue.record("sendLocation not delivered"); return }
        #expect(wait(await send(1, state: message)) == interval, "at once: the whole interval")
        clock.withLock { $0 += interval - .milliseconds(100) }
        #expect(wait(await send(1, state: message)) == .milliseconds(100), "what is left of it")
        #expect(await api.waitForCalls { !$0.isEmpty }.count == 1)
        guard chat.isGroup else { return }  // the Bot API counts a private chat's second on its own clock
        clock.withLock { $0 += .milliseconds(100) }
        guard case .delivered = await send(1, state: message) else { Issue.record("the edit, due, not delivered"); return }
        #expect(wait(await send(2, state: message)) == interval, "the next waits from this answer")
        #expect(await api.waitForCalls { $0.count >= 2 }.map(\.method) == ["sendLocation", "editMessageLiveLocation"])
    }

    @Test func floodControlIsWaitedOutForItsRetryAfterThenTheEditGoesThrough() async throws {
        let harness = try await TelegramHarness(script: ["auto", "429:2"])
        let id = ShareID.random()
        try await harness.commit(telegramShare(id, updates: 2, end: false), every: .milliseconds(1100))
        let calls = await harness.api.waitForCalls { $0.filter { $0.status == 200 }.count >= 2 }
        let status = await harness.status()
        await harness.stop()

        #expect(calls.count == 3)
        #expect(calls.map(\.status) == [200, 429, 200])
        #expect(calls.count == 3 && calls[2].received - calls[1].received >= 1.99)
        #expect(calls.last?.method == "editMessageLiveLocation")
        #expect(status?.failedAttempts == 1)
    }

    /// issue 23: `retry_after: 1e19` (≥ 9.3e15 s, a Double that no Int64 of milliseconds holds) once
    /// crashed the process with SIGILL, at every restart. It is a bounded wait: the retry policy's
    /// longest (here 1 s), then the whole share goes through: nothing lost.
    @Test func anAbsurdRetryAfterIsABoundedWaitAndNothingIsLost() async throws {
        let harness = try await TelegramHarness(script: ["auto", "429:1e19"],
                                                retry: RetryPolicy(base: .milliseconds(50), cap: .milliseconds(500), maxRetryAfter: .seconds(1)))
        let id = ShareID.random()
        let events = telegramShare(id, updates: 3)
        try await harness.commit(events, every: .milliseconds(100))
        let calls = await harness.api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" && $0.status == 200 } }
        let status = await harness.waitForStatus { $0.pending == 0 }
        await harness.stop()

        #expect(calls.count >= 3 && calls[1].status == 429 && calls[1].description.contains("retry after 10000000000000000000"))
        #expect(calls.count >= 3 && calls[2].received - calls[1].received >= 0.99, "the wait asked for, bounded")
        #expect(calls.last?.method == "stopMessageLiveLocation")
        // Nothing lost: the last edit shows the final position (older updates are superseded, as
        // the Telegram queue's `latest` backlog does), then the live location is stopped.
        guard case .updated(_, _, let final) = events[events.count - 2] else { Issue.record("no final update"); return }
        #expect(calls.last { $0.method == "editMessageLiveLocation" && $0.status == 200 }?.number("latitude") == final.latitude)
        #expect(status?.pending == 0)
        #expect(harness.log.all.contains { $0.contains("Telegram flood control") })
    }

    @Test func aShareThatExpiredOnTelegramsSideEndsWithoutErrors() async throws {
        // Live periods pass 250 times faster: the 900 s live location is over after 3.6 s.
        let harness = try await TelegramHarness(livePeriodScale: 0.004)
        let id = ShareID.random()
        let events = telegramShare(id, updates: 3)
        try await harness.commit([events[0]])
        await harness.api.waitForCalls { $0.contains { $0.method == "sendLocation" } }
        try await Task.sleep(for: .seconds(4))
        try await harness.commit(Array(events.dropFirst()), every: .milliseconds(200))
        let status = await harness.waitForStatus { $0.pending == 0 }
        try await Task.sleep(for: .milliseconds(300))
        let calls = harness.api.calls()
        await harness.stop()

        #expect(calls.map(\.method) == ["sendLocation", "editMessageLiveLocation"])
        #expect(calls.last?.description == "Bad Request: message can't be edited")
        #expect(status?.pending == 0)
        #expect(status?.state == .active)
        #expect(status?.failedAttempts == 0)
        #expect(status?.lastError == nil)
        #expect(harness.log.contains("over on Telegram's side"))
    }

    @Test func aChatTheBotIsNotInStopsTheDestinationWithAClearStatus() async throws {
        let harness = try await TelegramHarness(chat: .id(7), chats: ["42"])
        let id = ShareID.random()
        try await harness.commit(telegramShare(id, updates: 3), every: .milliseconds(100))
        let status = await harness.waitForStatus { $0.state != .active }
        try await Task.sleep(for: .milliseconds(1500))
        let calls = harness.api.calls()
        await harness.stop()

        #expect(status?.state == .disabled && status?.lastError == "Bad Request: chat not found")
        #expect(calls.count == 1)  // not a retry loop
        #expect(status?.pending == 2)  // the final update and ended stay queued until a restart
    }

    @Test func aRefusedTokenStopsTheDestinationAndIsNeverShown() async throws {
        let harness = try await TelegramHarness(serverToken: "987654321:AAH-other_token")
        try await harness.commit(telegramShare(.random(), updates: 1, end: false))
        let status = await harness.waitForStatus { $0.state != .active }
        await harness.stop()

        guard status?.state == .disabled, let reason = status?.lastError else { Issue.record("not disabled: \(String(describing: status))"); return }
        #expect(reason.contains("refused the bot token"))
        #expect(!reason.contains(TelegramHarness.token))
        #expect(!harness.log.all.contains { $0.contains(TelegramHarness.token) })
        #expect(harness.log.contains("disabled"))
    }

    @Test func aLostMessageIsRefusedOnceAndTheRestOfTheShareSendsNothing() async throws {
        let harness = try await TelegramHarness()
        let id = ShareID.random()
        let events = telegramShare(id, updates: 4)
        try await harness.commit([events[0]])
        await harness.api.waitForCalls { $0.contains { $0.method == "sendLocation" } }
        // The Bot API forgets the message (as when someone deletes it): restart it on the same port.
        let port = harness.api.server.port
        harness.api.stop()
        let revived = try await BotAPIServer.start(token: TelegramHarness.token, records: harness.api.server.recordsFile,
                                                   firstMessageID: 100, port: port)
        try await Task.sleep(for: .seconds(1))
        try await harness.commit(Array(events.dropFirst()), every: .milliseconds(300))
        let status = await harness.waitForStatus { $0.pending == 0 }
        try await Task.sleep(for: .milliseconds(300))
        let calls = revived.calls()
        await harness.stop()
        revived.stop()

        #expect(calls.map(\.method) == ["sendLocation", "editMessageLiveLocation"])
        #expect(calls.last?.description == "Bad Request: message to edit not found")
        #expect(status?.pending == 0)
        #expect(status?.failedAttempts == 1)
        #expect(harness.log.contains("message to edit not found"))
    }

    @Test func anUnchangedPositionIsNotSentAgain() async throws {
        let harness = try await TelegramHarness()
        let id = ShareID.random()
        let events = telegramShare(id, updates: 3, moving: false)
        try await harness.commit(Array(events.prefix(3)), every: .milliseconds(1100))
        try await harness.commit(Array(events.suffix(2)))
        let calls = await harness.api.waitForCalls { $0.contains { $0.method == "stopMessageLiveLocation" } }
        await harness.stop()

        #expect(calls.map(\.method) == ["sendLocation", "stopMessageLiveLocation"])
    }
}
