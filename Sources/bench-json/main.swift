// The control protocol's JSON, JSONCoding against FoundationEssentials' JSONEncoder and JSONDecoder
// (issue 19 item 7): each round trip (a status reply encoded, a request decoded) N times, CPU time
// per round trip. bench/json-coding.sh runs it beside the two RSS probes.
import Control
import FoundationEssentials
import JSONCoding
import LiveLocation

#if canImport(Glibc)
import Glibc
#endif

func cpuMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}

let fix = Fix(time: Timestamp(iso8601: "2026-12-03T06:00:01.250Z")!, latitude: 52.520008, longitude: -13.404954,
              mode: .threeDimensional, altitudeMSLMeters: 34.5, speedMetersPerSecond: 0, courseDegreesTrue: 359.9, hdop: 0.9,
              satellitesUsed: 11)
let snapshot = ShareSnapshot(id: ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41"),
                             startedAt: Timestamp(iso8601: "2026-12-03T06:00:00.000Z")!,
                             expiresAt: Timestamp(iso8601: "2026-12-03T07:00:00.000Z")!, lastFix: fix, lastSentFix: fix, seq: 17,
                             updatesSent: 16)
let status = StatusReport(
    source: SourceStatus(kind: "gpsd", state: .connected, fix: true, lastFixTime: fix.time.iso8601, lastFixAgeSeconds: 0.25,
                         fixesReceived: 1234, lastError: nil),
    share: ShareSummary(snapshot, now: Timestamp(iso8601: "2026-12-03T06:30:00.500Z")!),
    destinations: [DestinationSummary(name: "stdout", delivered: 17, failed: 0, lastError: nil),
                   DestinationSummary(name: "webhook", delivered: 15, failed: 2, lastError: "HTTP 503",
                                      delivery: .init(state: .retrying, pending: 2, acknowledged: 15, dropped: 0, lastError: "HTTP 503"))],
    clock: "2026-12-03T06:30:00.500Z")
let reply = ControlResponse.success(status: status)
let request = Array(#"{"v":1,"op":"start","duration":"8h","id":"van-1"}"#.utf8)

let rounds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
var sink = 0

let before = cpuMicroseconds()
for _ in 0..<rounds {
    sink &+= (try! JSON.encode(reply)).count
    sink &+= (try! JSON.decode(ControlRequestLine.self, from: request)).op?.count ?? 0
}
let jsonCoding = (cpuMicroseconds() - before) / Double(rounds)

let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
let decoder = JSONDecoder()
let requestData = Data(request)
let start = cpuMicroseconds()
for _ in 0..<rounds {
    sink &+= (try! encoder.encode(reply)).count
    sink &+= (try! decoder.decode(ControlRequestLine.self, from: requestData)).op?.count ?? 0
}
let foundation = (cpuMicroseconds() - start) / Double(rounds)
print("round trips: \(rounds) (a status reply of \((try! JSON.encode(reply)).count) bytes encoded, a start request decoded)")
func tenths(_ value: Double) -> String { "\(Int(value))." + "\(Int((value * 10).rounded()) % 10)" }
print("JSONCoding:                       \(tenths(jsonCoding)) µs CPU per round trip")
print("FoundationEssentials JSONEncoder: \(tenths(foundation)) µs CPU per round trip")
if sink == 42 { print("") }
