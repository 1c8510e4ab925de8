import Foundation
import Control
import JSONCoding
import LiveLocation
import Testing

/// The daemon writes its control replies and share.json without Foundation (JSONCoding). These fix
/// that the bytes are the ones Foundation's JSONEncoder wrote before, so that a share.json of an
/// earlier livelocd loads after an upgrade and scripts reading `liveloc status --json` see no change.
@Suite struct ControlJSONCompatibility {
    private let fix = Fix(time: Timestamp(iso8601: "2026-12-03T06:00:01.250Z")!, latitude: 52.520008, longitude: -13.404954,
                          mode: .threeDimensional, altitudeMSLMeters: 34.5, speedMetersPerSecond: 0,
                          courseDegreesTrue: 359.9, hdop: 0.9, satellitesUsed: 11)

    private var snapshot: ShareSnapshot {
        ShareSnapshot(id: ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41"),
                      startedAt: Timestamp(iso8601: "2026-12-03T06:00:00.000Z")!,
                      expiresAt: Timestamp(iso8601: "2026-12-03T07:00:00.000Z")!,
                      lastFix: fix, lastSentFix: fix, seq: 17, updatesSent: 16)
    }

    private func foundationJSON(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    @Test func shareFileBytesAreThoseFoundationWrote() throws {
        #expect(try JSON.encode(snapshot) == (try foundationJSON(snapshot)))
    }

    @Test func aShareFileFoundationWroteLoads() throws {
        #expect(try JSON.decode(ShareSnapshot.self, from: try foundationJSON(snapshot)) == snapshot)
    }

    @Test func statusReplyBytesAreThoseFoundationWrote() throws {
        let status = StatusReport(
            source: SourceStatus(kind: "gpsd", state: .connected, fix: true, lastFixTime: fix.time.iso8601,
                                 lastFixAgeSeconds: 0.25, fixesReceived: 1234, lastError: "gpsd 127.0.0.1:2947: \"lost\"/reset"),
            share: ShareSummary(snapshot, now: Timestamp(iso8601: "2026-12-03T06:30:00.500Z")!),
            destinations: [DestinationSummary(name: "stdout", delivered: 17, failed: 0, lastError: nil, delivery: nil),
                    DestinationSummary(name: "webhook", delivered: 15, failed: 2, lastError: "HTTP 503",
                               delivery: .init(state: .retrying, pending: 2, acknowledged: 15, dropped: 0, lastError: "HTTP 503"))],
            clock: "2026-12-03T06:30:00.500Z")
        let reply = ControlResponse.success(status: status)
        var expected = try foundationJSON(reply)
        expected.append(UInt8(ascii: "\n"))
        #expect(reply.line == expected)
    }

    @Test func failureReplyBytesAreThoseFoundationWrote() throws {
        let reply = ControlResponse.failure(.badDuration, "duration must be 15m, 1h or 8h")
        #expect(reply.line == (try foundationJSON(reply)) + [UInt8(ascii: "\n")])
    }

    @Test func aRequestFoundationEncodedIsReadTheSame() throws {
        let wire = ControlRequestLine(v: 1, op: "start", duration: "8h")
        #expect(try ControlRequest.parse(foundationJSON(wire)).get() == .start(.eightHours))
    }

    @Test func aRequestLineIsTheBytesFoundationWrote() throws {
        let wire = ControlRequestLine(v: 1, op: "start", duration: "15m")
        #expect(ControlRequest.start(.fifteenMinutes).line == (try foundationJSON(wire)) + [UInt8(ascii: "\n")])
    }
}
