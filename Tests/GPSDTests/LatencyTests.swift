import Foundation
@testable import GPSD
import LiveLocation
import Locking
import Testing
import TestSupport

/// How long a fix takes from gpsd to a consumer. Prints p50/p99 for the record and asserts only that
/// every fix arrives: speed targets belong to bench/, not to timed tests on a shared machine.
@Suite(.serialized, .enabled(if: GPSFake.isAvailable, "gpsfake and gpsd are not installed"))
struct LatencyTests {
    final class ReadTimes: Sendable {
        let times = Locked<[Timestamp: ContinuousClock.Instant]>([:])
    }

    @Test func fixReachesTheConsumerWithinMillisecondsOfGPSRead() async throws {
        let log = Paths.fixture("fix-loss.nmea")
        try #require(FileManager.default.fileExists(atPath: log.path), "Fixtures/fix-loss.nmea is absent")
        let fake = try await GPSFake.start(log: log, secondsPerSentence: 0.01)
        defer { Task { await fake.stop() } }
        let reads = ReadTimes()
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: fake.port), device: nil,
                                log: .silent, onRead: { fix in reads.times.withLock { $0[fix.time] = .now } })
        var delays: [Double] = []
        for await fix in source.fixes() {
            let received = ContinuousClock.now
            if let read = reads.times.withLock({ $0[fix.time] }) {
                delays.append(Double((received - read).wholeMicroseconds) / 1000)
            }
            if delays.count >= 200 { break }
        }
        await fake.stop()
        let p50 = percentile(delays, 50), p99 = percentile(delays, 99)
        print("gpsd source latency, gps_read → consumer, \(delays.count) fixes: p50 \(format(p50)) ms, p99 \(format(p99)) ms, max \(format(delays.max() ?? .nan)) ms")
        #expect(delays.count == 200)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gpspipe"), "gpspipe is absent"))
    func livelocFixesPrintsEachFixAboutAsSoonAsGpspipeDoes() async throws {
        let log = Paths.fixture("fix-loss.nmea")
        try #require(FileManager.default.fileExists(atPath: log.path), "Fixtures/fix-loss.nmea is absent")
        let fake = try await GPSFake.start(log: log, secondsPerSentence: 0.01)
        defer { Task { await fake.stop() } }
        let count = 150
        let gpspipe = try await TimestampedLines(URL(fileURLWithPath: "/usr/bin/gpspipe"), ["-w", "127.0.0.1:\(fake.port)"])
        let liveloc = try await TimestampedLines(Paths.executable("liveloc"),
                                           ["fixes", "--gpsd", "127.0.0.1:\(fake.port)", "--count", "\(count)"])
        _ = await liveloc.waitForExit(timeout: .seconds(40))
        gpspipe.stop()
        _ = await gpspipe.waitForExit(timeout: .seconds(5))
        await fake.stop()

        // gpspipe prints every TPV; the first one of each time with a position is the one liveloc prints.
        var gpspipeTimes: [String: ContinuousClock.Instant] = [:]
        for (instant, line) in gpspipe.lines where line.contains("\"class\":\"TPV\"") && line.contains("\"lat\"") {
            guard let time = timeField(line), gpspipeTimes[time] == nil else { continue }
            gpspipeTimes[time] = instant
        }
        var delays: [Double] = []
        for (instant, line) in liveloc.lines {
            guard let time = timeField(line), let seen = gpspipeTimes[time] else { continue }
            delays.append(Double((instant - seen).wholeMicroseconds) / 1000)
        }
        let p50 = percentile(delays, 50), p99 = percentile(delays, 99)
        print("liveloc fixes vs gpspipe -w, same TPV, \(delays.count) fixes: p50 \(format(p50)) ms, p99 \(format(p99)) ms, min \(format(delays.min() ?? .nan)) ms")
        #expect(delays.count == count)
    }

    private func timeField(_ line: String) -> String? {
        guard let range = line.range(of: "\"time\":\"") else { return nil }
        let rest = line[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

extension Duration {
    var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}

/// A process whose stdout lines are recorded with the instant each was read.
final class TimestampedLines: Sendable {
    private final class Recorded: Sendable {
        let lines = Locked<[(ContinuousClock.Instant, String)]>([])
        let finished = Locked(false)
    }

    private let process: Process
    private let recorded = Recorded()

    init(_ executable: URL, _ arguments: [String]) async throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let recorded = self.recorded
        let handle = pipe.fileHandleForReading
        let reader = Thread {
            var pending: [UInt8] = []
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                let now = ContinuousClock.now
                pending.append(contentsOf: data)
                while let newline = pending.firstIndex(of: 10) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    recorded.lines.withLock { $0.append((now, line)) }
                }
            }
            recorded.finished.withLock { $0 = true }
        }
        try await process.runAsTestChild()
        reader.start()
    }

    var lines: [(ContinuousClock.Instant, String)] { recorded.lines.withLock { $0 } }

    func stop() { if process.isRunning { process.terminate() } }

    func waitForExit(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while process.isRunning || !recorded.finished.withLock({ $0 }), clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { process.terminate() }
        return !process.isRunning
    }
}
