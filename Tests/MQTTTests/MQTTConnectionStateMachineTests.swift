import Delivery
import LiveLocation
@testable import MQTT
import Testing

/// The MQTT connection's decisions, without a broker: each test feeds the state machine the events
/// libmosquitto, `send`, `stop` and the loop thread would, and checks the actions it returns.
@Suite("MQTT connection state machine")
struct MQTTConnectionStateMachineTests {
    typealias Machine = MQTTConnectionStateMachine

    // MARK: - Publishing and acknowledgements

    @Test func anEventSentWhileConnectedIsPublishedAndDeliveredWhenItsMessageIsAcknowledged() throws {
        var machine = try Self.connected()
        var mids = MidSource()
        let receipt = DeliveryReceipt()
        let publication = try #require(machine.publishRequested(queuedShare(updates: 1)[0], receipt: receipt, now: .now).publication)
        #expect(publication.messages.map(\.topic) == ["livelocd/van/events", "livelocd/van/location"])
        let queued = mids.queue(publication, in: &machine)
        #expect(machine.acknowledged(mid: queued[0], code: 0).isNone, "one of two messages acknowledged: not yet")
        let done = machine.acknowledged(mid: queued[1], code: 0)
        #expect(done.fulfilled?.receipts == [ObjectIdentifier(receipt)])
        #expect(done.fulfilled?.outcome == .delivered())
        #expect(machine.acknowledged == 1)
    }

    @Test func eventsSentBeforeTheBrokerAcceptsWaitAndArePublishedInOrderAtTheConnack() throws {
        var machine = try Self.started()
        let events = queuedShare(updates: 3)
        let receipts = events.map { _ in DeliveryReceipt() }
        for (event, receipt) in zip(events, receipts) {
            #expect(machine.publishRequested(event, receipt: receipt, now: .now).isNone, "nothing published before CONNACK")
        }
        machine.clientCreated()
        guard case .announceConnection(let messages, let subscribe, let publications, let delivered, let log)
                = machine.connackReceived(code: 0, now: .now) else {
            Issue.record("expected announceConnection")
            return
        }
        #expect(messages.isEmpty && !subscribe && delivered.isEmpty)
        #expect(publications.map { seq(of: $0.messages[0].payloadText) } == [1, 2, 3, 4, 5])
        #expect(log?.text == "connected to mqtt://127.0.0.1:1883 as test-client")
        #expect(machine.link == .connected)
    }

    @Test func aDropWhileThreePublishesAreUnacknowledgedRetriesAllThreeInOrder() throws {
        var machine = try Self.connected()
        var mids = MidSource()
        let receipts = (0..<3).map { _ in DeliveryReceipt() }
        for (event, receipt) in zip(queuedShare(updates: 3).prefix(3), receipts) {
            mids.queue(try #require(machine.publishRequested(event, receipt: receipt, now: .now).publication), in: &machine)
        }
        machine.clientClosed()
        guard case .waitToReconnect(let failures, let retried, let outcome, let log)
                = machine.attemptEnded(reason: "connection lost", wasConnected: true) else {
            Issue.record("expected waitToReconnect")
            return
        }
        #expect(retried.map(ObjectIdentifier.init) == receipts.map(ObjectIdentifier.init))
        #expect(outcome == .retry(reason: "MQTT: connection lost"))
        #expect(failures == 1)
        #expect(log == Machine.LinkLog(level: .warning, text: "disconnected: connection lost"))
        #expect(machine.link == .disconnected(reason: "connection lost"))
        // Their messages' late acknowledgements belong to no event any more.
        #expect(mids.issued.allSatisfy { machine.acknowledged(mid: $0, code: 0).isNone })
        #expect(machine.acknowledged == 0)
    }

    /// A command's packet identifier is one packet's within one session of the broker's: the
    /// session changes at a CONNACK without a session present (a broker that lost its state), not
    /// at one that kept it.
    @Test func theBrokersSessionChangesOnlyAtAConnackWithoutASessionPresent() throws {
        var machine = try Self.connected()
        #expect(machine.session == 1)
        func reconnect(sessionPresent: Bool) {
            machine.clientClosed()
            _ = machine.attemptEnded(reason: "connection lost", wasConnected: true)
            _ = machine.connectDue(now: Timestamp(millisecondsSince1970: 0))
            machine.clientCreated()
            _ = machine.connackReceived(code: 0, sessionPresent: sessionPresent, now: .now)
        }
        reconnect(sessionPresent: true)
        #expect(machine.session == 1)
        reconnect(sessionPresent: false)
        #expect(machine.session == 2)
        // A refused CONNACK is no session.
        machine.clientClosed()
        _ = machine.attemptEnded(reason: "connection lost", wasConnected: true)
        machine.clientCreated()
        _ = machine.connackReceived(code: 135, now: .now)
        #expect(machine.session == 2)
    }

    @Test func anAcknowledgementForAnUnknownMidChangesNothing() throws {
        var machine = try Self.connected()
        var mids = MidSource()
        let receipt = DeliveryReceipt()
        let publication = try #require(machine.publishRequested(queuedShare(updates: 1)[0], receipt: receipt, now: .now).publication)
        let queued = mids.queue(publication, in: &machine)
        #expect(machine.acknowledged(mid: 999, code: 0).isNone)
        // The event still needs both of its own acknowledgements.
        #expect(machine.acknowledged(mid: queued[0], code: 0).isNone)
        #expect(machine.acknowledged(mid: queued[0], code: 0).isNone, "the same mid twice counts once")
        #expect(machine.acknowledged(mid: queued[1], code: 0).fulfilled?.outcome == .delivered())
    }

    @Test func theBrokerRefusingOneMessageOfAnEventDecidesTheEventsOutcome() throws {
        var machine = try Self.connected()
        var mids = MidSource()
        let publication = try #require(machine.publishRequested(queuedShare(updates: 1)[0], receipt: DeliveryReceipt(),
                                                                now: .now).publication)
        let queued = mids.queue(publication, in: &machine)
        #expect(machine.acknowledged(mid: queued[0], code: 0x87).isNone)  // not authorized
        let outcome = machine.acknowledged(mid: queued[1], code: 0).fulfilled?.outcome
        guard case .disabled(let reason)? = outcome else {
            Issue.record("expected disabled, got \(String(describing: outcome))")
            return
        }
        #expect(reason.contains("not authorized"))
        #expect(machine.acknowledged == 0, "a refused event is not counted as acknowledged")
    }

    @Test func libmosquittoRefusingAPublishRetriesThatEventAloneAndForgetsIt() throws {
        var machine = try Self.connected()
        let receipt = DeliveryReceipt()
        let publication = try #require(machine.publishRequested(queuedShare(updates: 1)[0], receipt: receipt, now: .now).publication)
        let action = machine.publishFailed(eventID: publication.eventID, reason: "MQTT publish on x failed: out of memory")
        #expect(action.fulfilled?.receipts == [ObjectIdentifier(receipt)])
        #expect(action.fulfilled?.outcome == .retry(reason: "MQTT publish on x failed: out of memory"))
        machine.clientClosed()
        guard case .waitToReconnect(_, let retried, _, _) = machine.attemptEnded(reason: "connection lost", wasConnected: true) else {
            Issue.record("expected waitToReconnect")
            return
        }
        #expect(retried.isEmpty, "reported once, not again at the drop")
    }

    // MARK: - Outages and backoff

    @Test func onlyTheFirstFailureOfAnOutageRetriesTheWaitingEvents() throws {
        var machine = try Self.started()
        let event = queuedShare(updates: 1)[0]
        let waiting = DeliveryReceipt()
        _ = machine.publishRequested(event, receipt: waiting, now: .now)
        machine.clientCreated()
        machine.clientClosed()
        guard case .waitToReconnect(let first, let firstRetried, _, _) = machine.attemptEnded(reason: "unreachable", wasConnected: false) else {
            Issue.record("expected waitToReconnect")
            return
        }
        #expect(firstRetried.map(ObjectIdentifier.init) == [ObjectIdentifier(waiting)])
        // The runner sends the event again; it waits for the connection through the next failures.
        let resent = DeliveryReceipt()
        #expect(machine.publishRequested(event, receipt: resent, now: .now).isNone)
        guard case .waitToReconnect(let second, let secondRetried, _, let secondLog)
                = machine.attemptEnded(reason: "unreachable", wasConnected: false) else {
            Issue.record("expected waitToReconnect")
            return
        }
        #expect(secondRetried.isEmpty, "the runner's re-send waits without a second failure")
        #expect(machine.link == .refused(reason: "unreachable"))
        machine.clientCreated()
        guard case .announceConnection(_, _, let publications, _, _) = machine.connackReceived(code: 0, now: .now) else {
            Issue.record("expected announceConnection")
            return
        }
        #expect(publications.count == 1, "the re-sent event goes out at the connection")
        #expect((first, second) == (1, 2), "refused attempts in a row grow the backoff")
        #expect(secondLog == nil, "one line per change, not one per attempt")
    }

    @Test func aConnectionThatWasUpRestartsTheBackoffAndTheNextOutageRetriesWaitingEventsAgain() throws {
        var machine = try Self.started()
        _ = machine.attemptEnded(reason: "unreachable", wasConnected: false)
        _ = machine.attemptEnded(reason: "unreachable", wasConnected: false)
        _ = machine.connectDue(now: Timestamp(millisecondsSince1970: 0))
        machine.clientCreated()
        _ = machine.connackReceived(code: 0, now: .now)
        machine.clientClosed()
        let waiting = DeliveryReceipt()
        #expect(machine.publishRequested(queuedShare(updates: 1)[0], receipt: waiting, now: .now).isNone)
        guard case .waitToReconnect(let failures, let retried, _, _) = machine.attemptEnded(reason: "connection lost",
                                                                                            wasConnected: true) else {
            Issue.record("expected waitToReconnect")
            return
        }
        #expect(failures == 1)
        #expect(retried.map(ObjectIdentifier.init) == [ObjectIdentifier(waiting)])
    }

    @Test func aRefusedConnackIsTheAttemptsReasonAndPublishesNothing() throws {
        var machine = try Self.started()
        _ = machine.publishRequested(queuedShare(updates: 1)[0], receipt: DeliveryReceipt(), now: .now)
        machine.clientCreated()
        #expect(machine.connackReceived(code: 135, now: .now).isNone)
        #expect(!machine.isConnected)
        #expect(machine.attemptDiagnosis.refusal == "not authorized: not authorized (MQTT 5 reason code 135)")
        machine.clientCreated()
        #expect(machine.attemptDiagnosis.refusal == nil, "each attempt starts without a refusal")
        #expect(machine.attempts == 2)
    }

    @Test func theFirstAttemptsTimeDatesEveryLaterWill() throws {
        var machine = MQTTConnectionStateMachine(configuration: try Self.configuration())
        _ = machine.runRequested()
        _ = machine.threadStarted()
        guard case .connect(let first) = machine.connectDue(now: Timestamp(millisecondsSince1970: 1_000)) else {
            Issue.record("expected connect")
            return
        }
        _ = machine.attemptEnded(reason: "unreachable", wasConnected: false)
        guard case .connect(let second) = machine.connectDue(now: Timestamp(millisecondsSince1970: 9_000)) else {
            Issue.record("expected connect")
            return
        }
        #expect(first == Timestamp(millisecondsSince1970: 1_000))
        #expect(second == first)
    }

    // MARK: - Stop and run

    @Test func stopWhileConnectedDisconnectsOnceThenFinishes() throws {
        var machine = try Self.connected()
        var mids = MidSource()
        let unacknowledged = DeliveryReceipt()
        mids.queue(try #require(machine.publishRequested(queuedShare(updates: 1)[0], receipt: unacknowledged, now: .now).publication),
                   in: &machine)
        guard case .close(let messages) = machine.stopRequested() else {
            Issue.record("expected close")
            return
        }
        #expect(messages.isEmpty, "livelocd's format says nothing before a clean disconnect")
        #expect(machine.stopRequested().isNone, "a second stop does nothing")
        let late = DeliveryReceipt()
        #expect(machine.publishRequested(queuedShare(updates: 1)[0], receipt: late, now: .now).fulfilled?.outcome
                == .retry(reason: "MQTT destination stopping"))
        machine.clientClosed()
        guard case .finish(let receipts, let outcome, _) = machine.attemptEnded(reason: "stopped", wasConnected: true) else {
            Issue.record("expected finish")
            return
        }
        #expect(receipts.map(ObjectIdentifier.init) == [ObjectIdentifier(unacknowledged)])
        #expect(outcome == .retry(reason: "MQTT destination stopped"))
        #expect(machine.link == .disconnected(reason: "stopped"))
    }

    @Test func stopWhileConnectedToHomeAssistantSaysOfflineAndWaitsForItsAcknowledgements() throws {
        var machine = try Self.connected(format: .homeassistant)
        guard case .close(let messages) = machine.stopRequested() else {
            Issue.record("expected close")
            return
        }
        #expect(messages.map(\.topic) == ["livelocd/van/availability", "livelocd/van/connection"])
        #expect(messages.allSatisfy { $0.payloadText == "offline" })
        machine.closingMessageQueued(mid: 41)
        machine.closingMessageQueued(mid: 42)
        #expect(machine.acknowledged(mid: 41, code: 0).isNone)
        #expect(!machine.closingAcknowledged)
        #expect(machine.acknowledged(mid: 42, code: 0).isNone)
        #expect(machine.closingAcknowledged)
    }

    @Test func stopWhileWaitingToReconnectWakesTheLoopWhichFinishesWithTheWaitingEvents() throws {
        var machine = try Self.started()
        _ = machine.attemptEnded(reason: "unreachable", wasConnected: false)
        let waiting = DeliveryReceipt()
        _ = machine.publishRequested(queuedShare(updates: 1)[0], receipt: waiting, now: .now)
        guard case .wakeLoop = machine.stopRequested() else {
            Issue.record("expected wakeLoop")
            return
        }
        guard case .finish(let receipts, _, _) = machine.connectDue(now: Timestamp(millisecondsSince1970: 0)) else {
            Issue.record("expected finish")
            return
        }
        #expect(receipts.map(ObjectIdentifier.init) == [ObjectIdentifier(waiting)])
    }

    @Test func runWhileRunningIsRefusedAndRunAfterTheEndStartsAgain() throws {
        var machine = try Self.started()
        guard case .refuseRun = machine.runRequested() else {
            Issue.record("expected refuseRun")
            return
        }
        _ = machine.stopRequested()
        _ = machine.connectDue(now: Timestamp(millisecondsSince1970: 0))
        guard case .startThread = machine.runRequested() else {
            Issue.record("expected startThread")
            return
        }
        #expect(!machine.isStopping, "a new run is not stopping")
    }

    @Test func theLinkIsLoggedOncePerChangeNotOncePerAttempt() throws {
        var machine = MQTTConnectionStateMachine(configuration: try Self.configuration())
        _ = machine.runRequested()
        #expect(machine.threadStarted() == Machine.LinkLog(level: .info, text: "connecting to mqtt://127.0.0.1:1883"))
        #expect(machine.link == .connecting)
        _ = machine.connectDue(now: Timestamp(millisecondsSince1970: 0))
        machine.clientCreated()
        guard case .announceConnection(_, _, _, _, let connected) = machine.connackReceived(code: 0, now: .now) else {
            Issue.record("expected announceConnection")
            return
        }
        #expect(connected == Machine.LinkLog(level: .notice, text: "connected to mqtt://127.0.0.1:1883 as test-client"))
        machine.clientClosed()
        var lines: [Machine.LinkLog?] = []
        for (reason, wasConnected) in [("connection lost", true), ("unreachable: refused", false), ("unreachable: refused", false)] {
            guard case .waitToReconnect(_, _, _, let line) = machine.attemptEnded(reason: reason, wasConnected: wasConnected) else {
                Issue.record("expected waitToReconnect")
                return
            }
            lines.append(line)
        }
        #expect(lines == [Machine.LinkLog(level: .warning, text: "disconnected: connection lost"),
                          Machine.LinkLog(level: .warning, text: "connection refused: unreachable: refused"),
                          nil])
    }

    // MARK: - The loop thread's wait

    @Test func theLoopWaitsForPacketsWhileConnectedAndLooksEverySecondWhileConnectingOrStopping() throws {
        var machine = try Self.started()
        machine.clientCreated()
        #expect(machine.loopWait(now: .now) == .seconds(1), "connecting: the CONNACK's deadline")
        _ = machine.connackReceived(code: 0, now: .now)
        _ = machine.publishRequested(queuedShare(updates: 1)[0], receipt: DeliveryReceipt(), now: .now)
        #expect(machine.loopWait(now: .now) == nil, "connected: libmosquitto wakes for packets and its keepalive")
        _ = machine.stopRequested()
        #expect(machine.loopWait(now: .now) == .seconds(1))
    }

    @Test func homeAssistantsCountdownMakesTheLoopWaitUntilTheMinutesLeftGoDown() throws {
        var machine = try Self.connected(format: .homeassistant)
        let formatted = ContinuousClock.now
        #expect(machine.loopWait(now: formatted) == nil, "no share: nothing counts down")
        // 900 s left at the only fix: 15 minutes said; 14 is due 60 s later.
        let events = queuedShare(updates: 1)
        _ = machine.publishRequested(events[0], receipt: DeliveryReceipt(), now: formatted)
        #expect(machine.loopWait(now: formatted) == .seconds(60))
        #expect(machine.loopWait(now: formatted + .seconds(45)) == .seconds(15))
        #expect(machine.countdownDue(now: formatted + .seconds(59)).isNone)
        guard case .publishUntracked(let fourteen) = machine.countdownDue(now: formatted + .seconds(60)) else {
            Issue.record("expected the countdown")
            return
        }
        #expect(fourteen.payloadText.hasPrefix(#"{"sharing":"ON","minutes_left":14"#))
        #expect(machine.loopWait(now: formatted + .seconds(60)) == .seconds(60), "the next minute")
        _ = machine.publishRequested(events[1], receipt: DeliveryReceipt(), now: formatted)  // the final update
        #expect(machine.loopWait(now: formatted) == nil)
    }

    // MARK: - Helpers

    static func configuration(format: MQTTFormat = .livelocd) throws -> MQTTConfiguration {
        var configuration = try testConfiguration("mqtt://127.0.0.1:1883", format: format, device: "van")
        configuration.clientID = "test-client"
        return configuration
    }

    /// A machine whose loop thread started and is making its first attempt.
    static func started(format: MQTTFormat = .livelocd) throws -> Machine {
        var machine = MQTTConnectionStateMachine(configuration: try configuration(format: format))
        _ = machine.runRequested()
        _ = machine.threadStarted()
        _ = machine.connectDue(now: Timestamp(millisecondsSince1970: 0))
        return machine
    }

    /// A machine whose client's connection the broker accepted.
    static func connected(format: MQTTFormat = .livelocd) throws -> Machine {
        var machine = try started(format: format)
        machine.clientCreated()
        _ = machine.connackReceived(code: 0, now: .now)
        return machine
    }
}

/// Message ids as libmosquitto hands them out: one after another.
struct MidSource {
    var next: Int32 = 1
    var issued: [Int32] = []

    /// Tells `machine` that the publication's messages were queued; returns their ids.
    @discardableResult
    mutating func queue(_ publication: MQTTConnectionStateMachine.Publication, in machine: inout MQTTConnectionStateMachine) -> [Int32] {
        let mids = publication.messages.map { _ in
            defer { next += 1 }
            return next
        }
        issued += mids
        machine.messagesQueued(eventID: publication.eventID, mids: mids)
        return mids
    }
}

extension MQTTConnectionStateMachine.Action {
    var isNone: Bool {
        if case .none = self { true } else { false }
    }

    var publication: MQTTConnectionStateMachine.Publication? {
        if case .publish(let publication) = self { publication } else { nil }
    }

    var fulfilled: (receipts: [ObjectIdentifier], outcome: DeliveryOutcome)? {
        if case .fulfil(let receipts, let outcome) = self { (receipts.map(ObjectIdentifier.init), outcome) } else { nil }
    }
}
