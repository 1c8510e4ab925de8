import Foundation
@testable import GPSD
import LiveLocation
import Locking
import SystemIO
import Testing
import TestSupport

/// The gpsd source against a real gpsd (gpsfake replaying logs on a free loopback port).
@Suite(.serialized, .enabled(if: GPSFake.isAvailable, "gpsfake and gpsd are not installed"))
struct GPSDSourceTests {
    static let corpusLog = "quectel-L70.log"

    /// Where the reports are read: each connection's own thread, or (livelocd) the thread of an
    /// executor that watches the socket (`GPSDSource.reading(on:)`).
    enum Reading: String, CaseIterable, CustomTestStringConvertible {
        case onItsOwnThread, onAnExecutorsThread
        var testDescription: String { rawValue }
    }

    /// The source at `port` reading as `reading` says, and the executor's thread if there is one
    /// (shut down by the caller).
    func source(port: UInt16, log: Logger = .silent, _ reading: Reading) throws -> (GPSDSource, ThreadExecutor?) {
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: port), log: log)
        guard reading == .onAnExecutorsThread else { return (source, nil) }
        let thread = try ThreadExecutor(name: "test-gpsd-read")
        return (source.reading(on: thread), thread)
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "../shared/gpsd-corpus is absent"))
    func fixesMatchTheTPVsOfTheLogsCheckFile() async throws {
        let corpus = try #require(CorpusLog(Self.corpusLog))
        #expect(corpus.expected.count == 16)
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.01)
        defer { Task { await fake.stop() } }
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: fake.port), log: .silent)
        // About 6 s of gpsfake's lead-in and log; the bound leaves room for a loaded machine.
        let fixes = await firstFixes(source.fixes(), count: corpus.expected.count, timeout: .seconds(30))
        await fake.stop()

        let times = fixes.map(\.time)
        let expectedTimes = corpus.expected.map(\.time)
        let start = try #require(startOfRun(times, in: expectedTimes, key: { $0 }),
                                 "the \(times.count) fix times are not a run of the .chk's")
        #expect(start < 3)
        #expect(start + times.count == expectedTimes.count)
        for (fix, tpv) in zip(fixes, corpus.expected[start...]) {
            #expect(abs(fix.latitude - tpv.lat) < 1e-7, "\(fix.time)")
            #expect(abs(fix.longitude - tpv.lon) < 1e-7, "\(fix.time)")
            #expect(fix.mode.rawValue == tpv.mode, "\(fix.time)")
            if tpv.mode == 3 {
                #expect(abs((fix.altitudeMSLMeters ?? .nan) - (tpv.altMSL ?? .nan)) < 1e-3, "\(fix.time)")
                #expect(abs((fix.altitudeHAEMeters ?? .nan) - (tpv.altHAE ?? .nan)) < 1e-3, "\(fix.time)")
            }
            #expect(abs((fix.speedMetersPerSecond ?? .nan) - (tpv.speed ?? .nan)) < 1e-3, "\(fix.time)")
            #expect(abs((fix.courseDegreesTrue ?? .nan) - (tpv.track ?? .nan)) < 1e-3, "\(fix.time)")
        }
        #expect(fixes.dropFirst().allSatisfy { $0.horizontalAccuracyMeters != nil })
    }

    @Test(arguments: Reading.allCases)
    func oneFixPerEpochWithPositionsAndTimesOfTheReplayedFixture(_ reading: Reading) async throws {
        let log = Paths.fixture("fix-loss.nmea")
        try #require(FileManager.default.fileExists(atPath: log.path), "Fixtures/fix-loss.nmea is absent")
        let fake = try await GPSFake.start(log: log, secondsPerSentence: 0.004)
        defer { Task { await fake.stop() } }
        let (source, thread) = try source(port: fake.port, reading)
        defer { thread?.shutdown() }
        // 480 epochs, 90 of them without a fix (the tunnel): 390 fixes.
        let end = Timestamp(iso8601: "2026-03-14T10:07:59Z")!
        let fixes = await firstFixes(source.fixes(), count: 390, timeout: .seconds(40), last: { $0.time == end })
        await fake.stop()
        #expect(fixes.count > 360)  // all, or all after the first few epochs (see `startOfRun`)
        #expect(fixes.last?.time == end)
        #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.time < $1.time })
        let tunnel = Timestamp(iso8601: "2026-03-14T10:03:00Z")!...Timestamp(iso8601: "2026-03-14T10:04:29Z")!
        #expect(fixes.allSatisfy { !tunnel.contains($0.time) })
        let outsideTunnel = fixes.filter { $0.time > tunnel.upperBound }
        #expect(outsideTunnel.count == 210)
        #expect(zip(outsideTunnel, outsideTunnel.dropFirst()).allSatisfy { $1.time - $0.time == .seconds(1) })
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "../shared/gpsd-corpus is absent"), arguments: Reading.allCases)
    func fixesFlowAgainAfterGPSDIsKilledAndRestartedOnTheSamePort(_ reading: Reading) async throws {
        let corpus = try #require(CorpusLog(Self.corpusLog))
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.05)
        defer { Task { await fake.stop() } }
        let lines = LogLines()
        let (source, thread) = try source(port: fake.port, log: lines.logger, reading)
        defer { thread?.shutdown() }
        let collector = FixCollector(source.fixes())
        defer { collector.cancel() }
        let before = await collector.waitFor(count: 3, timeout: .seconds(15))
        #expect(before.count >= 3)

        let states = source.states
        let restarted = try await fake.restart()
        defer { Task { await restarted.stop() } }
        let seenBefore = collector.fixes.count
        let after = Array(await collector.waitFor(count: seenBefore + 3, timeout: .seconds(20)).dropFirst(seenBefore))
        await restarted.stop()
        #expect(after.count >= 3)
        // The restarted gpsd replays the log from its start.
        #expect(after.first?.time == corpus.expected.first?.time)
        #expect(lines.all.contains { $0.contains("connection lost (gpsd closed the connection); retrying in") })
        #expect(lines.all.filter { $0.hasSuffix(": connected") }.count == 2)
        var seenDisconnected = false
        for await state in states {
            if case .disconnected = state { seenDisconnected = true; break }
        }
        #expect(seenDisconnected)
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "../shared/gpsd-corpus is absent"))
    func fixesArriveOnceGPSDStartsAfterTheSource() async throws {
        let corpus = try #require(CorpusLog(Self.corpusLog))
        let port = try GPSFake.freeLoopbackPort()
        let lines = LogLines()
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: port), log: lines.logger)
        let failures = Locked(0)
        let watcher = Task {
            for await state in source.states { if case .disconnected = state { failures.withLock { $0 += 1 } } }
        }
        defer { watcher.cancel() }
        let collector = FixCollector(source.fixes())
        defer { collector.cancel() }
        // a few failed attempts (0.25 s, 0.5 s, ... apart)
        #expect(await eventually(timeout: .seconds(10)) { failures.withLock { $0 } >= 3 })
        #expect(lines.all.count == 1)  // one line for repeated identical failures
        #expect(lines.all.first?.contains("cannot connect") == true)
        guard case .disconnected = source.state else {
            Issue.record("state \(source.state), expected disconnected"); return
        }
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.01, port: port)
        defer { Task { await fake.stop() } }
        let received = Array(await collector.waitFor(count: 5, timeout: .seconds(20)).prefix(5))
        await fake.stop()
        // gpsfake starts feeding ~1.4 s after launch, whoever is connected; the source, still in
        // its backoff, may miss the first epochs. What it gets is a run of consecutive epochs.
        #expect(received.count == 5)
        let times = corpus.expected.map(\.time)
        let start = try #require(times.firstIndex(of: received[0].time))
        #expect(received.map(\.time) == Array(times[start..<min(start + 5, times.count)]))
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "../shared/gpsd-corpus is absent"), arguments: Reading.allCases)
    func cancellingTheConsumerClosesTheConnectionWithinHalfASecond(_ reading: Reading) async throws {
        let corpus = try #require(CorpusLog(Self.corpusLog))
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.2)
        defer { Task { await fake.stop() } }
        let (source, thread) = try source(port: fake.port, reading)
        defer { thread?.shutdown() }
        let consumer = Task {
            var count = 0
            for await _ in source.fixes() { count += 1 }
            return count
        }
        let clock = ContinuousClock()
        var deadline = clock.now + .seconds(15)
        while source.state == .connecting || openConnections(toPort: fake.port) == 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(openConnections(toPort: fake.port) == 1)
        let cancelled = clock.now
        consumer.cancel()
        deadline = clock.now + .seconds(2)
        while openConnections(toPort: fake.port) > 0, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let elapsed = clock.now - cancelled
        #expect(openConnections(toPort: fake.port) == 0)
        #expect(elapsed < .milliseconds(500), "closed after \(elapsed)")
        _ = await consumer.value
        await fake.stop()
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "../shared/gpsd-corpus is absent"))
    func statesGoFromConnectingThroughConnectedToFix() async throws {
        let corpus = try #require(CorpusLog(Self.corpusLog))
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.01)
        defer { Task { await fake.stop() } }
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: fake.port), log: .silent)
        let states = source.states
        let fixes = await firstFixes(source.fixes(), count: 2, timeout: .seconds(15))
        await fake.stop()
        #expect(fixes.count == 2)
        var seen: [GPSDConnectionState] = []
        for await state in states {
            seen.append(state)
            if case .fix(.threeDimensional) = state { break }
        }
        // Before gpsfake has attached its pseudo-terminal, gpsd lists no receiver: no fix.
        #expect(Array(seen.prefix(2)) == [.connecting, .connected])
        #expect(seen.dropFirst(2).allSatisfy { $0 == .noFix || $0 == .fix(.twoDimensional) || $0 == .fix(.threeDimensional) })
        #expect(seen.contains(.fix(.twoDimensional)))  // the log's first epoch starts with a 2D report
        #expect(seen.last == .fix(.threeDimensional))
    }

    @Test(.enabled(if: Paths.gpsdCorpus != nil, "../shared/gpsd-corpus is absent"))
    func watchingADeviceGPSDDoesNotHaveGivesNoFixesAndLogsGPSDsError() async throws {
        let corpus = try #require(CorpusLog(Self.corpusLog))
        let fake = try await GPSFake.start(log: corpus.log, secondsPerSentence: 0.01)
        defer { Task { await fake.stop() } }
        let lines = LogLines()
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: fake.port),
                                device: "/dev/no-such-receiver", log: lines.logger)
        let collector = FixCollector(source.fixes())
        defer { collector.cancel() }
        // Until gpsd's answer to the watch (bounded), then a moment more for a fix that must not come.
        let deadline = ContinuousClock.now + .seconds(30)
        while !lines.all.contains(where: { $0.contains("gpsd error:") }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .seconds(1))
        await fake.stop()
        #expect(collector.fixes.isEmpty)
        #expect(lines.all.contains { $0.hasSuffix(": connected, watching /dev/no-such-receiver") })
        #expect(lines.all.contains { $0.contains("gpsd error: No such device as /dev/no-such-receiver") })
    }
}
