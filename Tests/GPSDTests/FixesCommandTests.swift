import Foundation
import LiveLocation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `liveloc fixes` run as a process against a real gpsd.
@Suite(.serialized) struct FixesCommandTests {
    let liveloc = Paths.executable("liveloc")

    @Test(.enabled(if: GPSFake.isAvailable && Paths.gpsdCorpus != nil, "gpsfake or ../shared/gpsd-corpus is absent"))
    func countThreePrintsThreeTPVLinesAndExitsZero() async throws {
        let corpus = try #require(CorpusLog("quectel-L70.log"))
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.01)
        defer { Task { await fake.stop() } }
        let result = try await runProcess(liveloc, ["fixes", "--gpsd", "127.0.0.1:\(fake.port)", "--count", "3"],
                                          timeout: .seconds(20))
        await fake.stop()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutLines
        #expect(lines.count == 3)
        let times = try lines.map { line -> String in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["class"] as? String == "TPV")
            #expect(object["lat"] is Double && object["lon"] is Double)
            return try #require(object["time"] as? String)
        }
        #expect(times == corpus.expected.prefix(3).map(\.time.iso8601))
        #expect(result.stderr.contains("liveloc: gpsd 127.0.0.1:\(fake.port): connected"))
    }

    @Test func malformedEndpointIsAUsageErrorWithStatusTwo() async throws {
        let result = try await runProcess(liveloc, ["fixes", "--gpsd", "host:99999"], timeout: .seconds(10))
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("host:99999"))
    }

    @Test func helpDescribesTheOptions() async throws {
        let result = try await runProcess(liveloc, ["fixes", "--help"], timeout: .seconds(10))
        #expect(result.status == 0)
        for option in ["--gpsd", "--gpsd-device", "--count"] { #expect(result.stdout.contains(option)) }
    }

    @Test func sigtermWhileGPSDIsAbsentExitsZero() async throws {
        let port = try GPSFake.freeLoopbackPort()
        let process = try await DaemonProcess(liveloc, ["fixes", "--gpsd", "127.0.0.1:\(port)"])
        // Its first failure (however long its start-up takes), then a second for more attempts
        // (0.25 s, then 0.5 s apart) that must not be logged again.
        try await process.waitForLine(.stderr, timeout: .seconds(30)) { $0.contains("cannot connect") }
        try await Task.sleep(for: .seconds(1))
        let clock = ContinuousClock()
        let stopping = clock.now
        process.send(SIGTERM)
        let status = await process.waitForExit(timeout: .seconds(30))
        #expect(clock.now - stopping < .seconds(5), "SIGTERM ends it promptly")
        #expect(status == 0)
        let stderr = process.lines(.stderr)
        #expect(stderr.count == 1, "\(stderr)")  // identical failures are logged once
        #expect(stderr.first?.hasPrefix("liveloc: gpsd 127.0.0.1:\(port): cannot connect (") == true)
    }
}
