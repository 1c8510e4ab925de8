import Delivery
import Foundation
import HTTP
import Journal
import LiveLocation
import Pipeline
import Synchronization
import Testing
import TestSupport
import Traccar

/// The outcome classification: one test per kind of answer.
@Suite("Traccar answers")
struct TraccarReplyTests {
    func outcome(_ result: Result<HTTPResponse, HTTPFailure>) -> DeliveryOutcome {
        TraccarReply.outcome(of: result, deviceID: "dev-1")
    }

    @Test func okIsDelivered() {
        #expect(outcome(.success(HTTPResponse(status: 200))) == .delivered())
    }

    @Test func badRequestOrNotFoundMeanAnUnknownDeviceAndStopTheDestination() {
        for status in [400, 404] {
            guard case .disabled(let reason) = outcome(.success(HTTPResponse(status: status))) else {
                Issue.record("HTTP \(status) not disabled")
                continue
            }
            #expect(reason.contains("does not know device id 'dev-1'"))
            #expect(reason.contains("HTTP \(status)"))
        }
    }

    @Test func aConnectionClosedWithoutAnAnswerIsSentAgainLikeAnyTransportFailure() {
        guard case .retry(let reason, nil) = outcome(.failure(.noResponse("Empty reply from server"))) else {
            Issue.record("not sent again")
            return
        }
        #expect(reason.contains("closed the connection without an answer"))
    }

    @Test func serverErrorsAreSentAgainAfterTheirRetryAfter() {
        #expect(outcome(.success(HTTPResponse(status: 503, retryAfter: .seconds(7)))) == .retry(reason: "HTTP 503", after: .seconds(7)))
        #expect(outcome(.success(HTTPResponse(status: 500))) == .retry(reason: "HTTP 500", after: nil))
    }

    @Test func otherAnswersAreSentAgain() {
        #expect(outcome(.success(HTTPResponse(status: 302))) == .retry(reason: "HTTP 302", after: nil))
        #expect(outcome(.success(HTTPResponse(status: 429, retryAfter: .seconds(2)))) == .retry(reason: "HTTP 429", after: .seconds(2)))
    }

    @Test func transportErrorsAreSentAgain() {
        #expect(outcome(.failure(.transport("Couldn't connect to server"))) == .retry(reason: "Couldn't connect to server"))
        #expect(outcome(.failure(.cancelled)) == .retry(reason: "cancelled"))
    }
}

@Suite("OsmAnd fields")
struct OsmAndPositionTests {
    static let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    @Test func aPositionHasTheProtocolsNamesAndUnits() {
        let location = LiveLocation(latitude: 48.1405925, longitude: 11.558804667, lastUpdateAt: Self.start + .milliseconds(1999),
                                    startedAt: Self.start, expiresAt: Self.start + .seconds(900), isActive: true,
                                    accuracyMeters: 2.1, altitudeMeters: 519.4, speedMetersPerSecond: 10, courseDegreesTrue: 27.8)
        let fields = OsmAndPosition.fields(for: location, shareID: ShareID(rawValue: "s-1"), deviceID: "dev 1")
        #expect(fields.map(\.name) == ["id", "lat", "lon", "timestamp", "speed", "bearing", "altitude", "accuracy", "shareId", "expiresAt"])
        #expect(fields.map(\.value) == ["dev 1", "48.1405925", "11.558804667", "1796000001", "19.438", "27.8", "519.4", "2.1",
                                        "s-1", "2026-11-30T01:08:20.000Z"])
    }

    @Test func hdopTheBatteryAndWhetherItChargesGoUnderTheDecodersNames() {
        func fields(course: Double? = nil, hdop: Double? = nil, battery: BatteryReading?) -> [String: String] {
            let location = LiveLocation(latitude: 1, longitude: 2, lastUpdateAt: Self.start, startedAt: Self.start,
                                        expiresAt: Self.start + .seconds(60), isActive: true, courseDegreesTrue: course,
                                        hdop: hdop, battery: battery)
            return Dictionary(uniqueKeysWithValues: OsmAndPosition.fields(for: location, shareID: ShareID(rawValue: "s"), deviceID: "d")
                .map { ($0.name, $0.value) })
        }
        let charging = fields(hdop: 1.2, battery: BatteryReading(level: 55, status: .charging))
        #expect(charging["hdop"] == "1.2" && charging["batt"] == "55" && charging["charge"] == "true")
        let discharging = fields(battery: BatteryReading(level: 20, status: .discharging))
        #expect(discharging["hdop"] == nil && discharging["batt"] == "20" && discharging["charge"] == "false")
        #expect(fields(battery: BatteryReading(level: 20, status: .unknown))["charge"] == nil)
        let none = fields(course: 359.9999999, battery: nil)
        #expect(none["batt"] == nil && none["charge"] == nil)
        #expect(none["bearing"] == "0")  // never 360
    }

    @Test func unknownValuesAreLeftOutAndTheFinalUpdateSaysTheShareEnded() {
        let location = LiveLocation(latitude: -33.5, longitude: -70, lastUpdateAt: Self.start, startedAt: Self.start,
                                    expiresAt: Self.start, isActive: false)
        let fields = OsmAndPosition.fields(for: location, shareID: ShareID(rawValue: "s-2"), deviceID: "d")
        #expect(fields.map(\.name) == ["id", "lat", "lon", "timestamp", "shareId", "expiresAt", "shareState"])
        #expect(fields.last?.value == "ended")
    }
}

/// The Traccar destination through the pipeline's runner and journal, against the loopback OsmAnd server.
@Suite("Traccar destination", .serialized, .timeLimit(.minutes(1)))
struct TraccarDestinationTests {
    static let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    /// A share of `updates` fixes one second apart, then its final update and `ended`.
    static func share(_ id: ShareID, updates: Int) -> [ShareEvent] {
        func location(_ index: Int, active: Bool) -> LiveLocation {
            LiveLocation(latitude: 48.1 + Double(index) * 0.0001, longitude: 11.5, lastUpdateAt: start + .seconds(index),
                         startedAt: start, expiresAt: active ? start + .seconds(3600) : start + .seconds(index), isActive: active,
                         accuracyMeters: 3, altitudeMeters: 500 + Double(index), speedMetersPerSecond: 1852.0 / 3600 * Double(index),
                         courseDegreesTrue: Double(index))
        }
        var events = (1...updates).map { ShareEvent.updated(shareID: id, seq: $0, location: location($0, active: true)) }
        events.append(.updated(shareID: id, seq: updates + 1, location: location(updates + 1, active: false)))
        events.append(.ended(shareID: id, seq: updates + 2, reason: .expired))
        return events
    }

    /// Runs a Traccar destination for `deviceID` over a new journal, commits `events` one batch each,
    /// and waits (at most 20 s) until `done` holds for the runner's status.
    static func deliver(_ events: [ShareEvent], to url: String, deviceID: String, log: LogLines,
                        until done: @escaping (DestinationStatus) -> Bool) async throws -> DestinationStatus {
        let destination = try TraccarDestination(configuration: TraccarConfiguration(url: url, deviceID: deviceID),
                                                 log: log.logger)
        let journal = try Journal(directory: try Paths.temporaryDirectory("traccar").appendingPathComponent("state").path,
                                  destinations: [destination.identity: destination.queue], log: log.logger)
        let runner = DestinationRunner(destination: destination, journal: journal,
                                       retry: RetryPolicy(base: .milliseconds(20), cap: .milliseconds(200)), log: log.logger)
        let task = Task { try await runner.run() }
        return try await withCleanup {
            for (index, event) in events.enumerated() {
                try await journal.commit(ShareBatch(events: [event], share: nil, through: UInt64(index + 1)))
                runner.wake()
            }
            let deadline = ContinuousClock.now + .seconds(20)
            var status = await runner.status()
            while !done(status) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                status = await runner.status()
            }
            return status
        } cleanup: {
            task.cancel()
            _ = try? await task.value
            await journal.close()
        }
    }

    @Test func everyAcceptedFixArrivesOnceInOrderWithTheDocumentedUnits() async throws {
        let directory = try Paths.temporaryDirectory("traccar")
        let server = try await OsmAndServer.start(devices: ["dev-1"], records: directory.appendingPathComponent("r.jsonl"))
        defer { server.stop() }
        let id = ShareID.random()
        let events = Self.share(id, updates: 30)
        let log = LogLines()
        let status = try await Self.deliver(events, to: server.url, deviceID: "dev-1", log: log) { $0.pending == 0 }
        let records = server.records()

        #expect(status.state == .active)
        #expect(records.count == 31)  // 30 updates and the final one; `ended` needs no request
        #expect(records.allSatisfy { $0.status == 200 && $0.method == "POST" && $0.inBody })
        for (index, record) in records.enumerated() {
            let n = Double(index + 1)
            #expect(record.params["id"] == "dev-1")
            #expect(abs((record.number("lat") ?? 0) - (48.1 + n * 0.0001)) < 1e-9)
            #expect(record.number("timestamp") == Double(1_796_000_000 + index + 1))
            #expect(abs((record.number("speed") ?? -1) - n) < 0.0011)  // knots (n × 1852 m/h), to 3 decimals
            #expect(record.number("bearing") == n)
            #expect(record.number("altitude") == 500 + n)
            #expect(record.number("accuracy") == 3)
            #expect(record.params["shareId"] == id.rawValue)
        }
        #expect(records.dropLast().allSatisfy { $0.params["shareState"] == nil && $0.params["expiresAt"] == "2026-11-30T01:53:20.000Z" })
        #expect(records.last?.params["shareState"] == "ended")
    }

    @Test func anUnknownDeviceIDStopsTheDestinationWithAClearStatusNotARetryLoop() async throws {
        let directory = try Paths.temporaryDirectory("traccar")
        let server = try await OsmAndServer.start(devices: ["dev-1"], records: directory.appendingPathComponent("r.jsonl"))
        defer { server.stop() }
        let log = LogLines()
        let status = try await Self.deliver(Self.share(.random(), updates: 5), to: server.url, deviceID: "typo", log: log) {
            $0.state != .active
        }
        try await Task.sleep(for: .milliseconds(500))

        #expect(status.state == .disabled && status.lastError == "Traccar does not know device id 'typo' (HTTP 400): add a device with this identifier in Traccar, then restart")
        #expect(server.records().count == 1)
        #expect(status.pending == 7)  // kept for the next start
        #expect(log.contains("does not know device id 'typo'"))
    }

    /// issue 23: 11 of 21 positions were dropped for good when the server hung up without an
    /// answer. A hang-up is retried like any transport failure: every position arrives, in order.
    @Test func positionsTheServerHangsUpOnAreSentAgainAndAllArriveInOrder() async throws {
        let directory = try Paths.temporaryDirectory("traccar")
        let server = try await OsmAndServer.start(devices: ["dev-1"], records: directory.appendingPathComponent("r.jsonl"),
                                                  script: ["auto", "close", "close", "500", "close", "auto", "close", "close", "close"])
        defer { server.stop() }
        let log = LogLines()
        let status = try await Self.deliver(Self.share(.random(), updates: 20), to: server.url, deviceID: "dev-1", log: log) {
            $0.pending == 0
        }
        let delivered = server.records().filter { $0.status == 200 }

        #expect(status.pending == 0 && status.dropped == 0)
        #expect(delivered.map { $0.params["timestamp"] } == (1...21).map { String(1_796_000_000 + $0) }, "every position once, in order")
        #expect(delivered.last?.params["shareState"] == "ended")
        #expect(status.failedAttempts >= 3)
        #expect(log.contains("closed the connection without an answer"))
        #expect(!log.contains("refused"))
    }

    /// A server that hangs up on everything for the whole share: nothing is dropped, the final
    /// update included; all of it waits in the queue (for the next start, or the server's return).
    @Test func aServerThatHangsUpOnTheWholeShareDropsNothingNotEvenTheFinalUpdate() async throws {
        let directory = try Paths.temporaryDirectory("traccar")
        let server = try await OsmAndServer.start(devices: ["dev-1"], records: directory.appendingPathComponent("r.jsonl"),
                                                  script: Array(repeating: "close", count: 400))
        defer { server.stop() }
        let log = LogLines()
        let status = try await Self.deliver(Self.share(.random(), updates: 5), to: server.url, deviceID: "dev-1", log: log) {
            $0.failedAttempts >= 4
        }

        #expect(server.records().count >= 4 && server.records().allSatisfy { $0.status == 0 })
        #expect(status.dropped == 0)
        #expect(status.pending == 7, "5 updates, the final update and ended stay queued")
        #expect(status.state == .retrying)
    }
}
