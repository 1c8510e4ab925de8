import Foundation
import GPSD
import LiveLocation
import Replay
import Testing
import TestSupport

/// The same log read by gpsd and by the NMEA replay gives the same fixes.
@Suite(.serialized, .enabled(if: GPSFake.isAvailable, "gpsfake and gpsd are not installed"))
struct ReplayAgreementTests {
    @Test func gpsdAndTheNMEAReplayAgreeOnTimesAndPositionsOfTheFixLossFixture() async throws {
        let log = Paths.fixture("fix-loss.nmea")
        try #require(FileManager.default.fileExists(atPath: log.path), "Fixtures/fix-loss.nmea is absent")
        let replay = try NMEAReplaySource(path: log.path, speed: 0)
        var replayed: [Fix] = []
        for try await fix in replay.fixes() { replayed.append(fix) }
        #expect(replayed.count == 390)

        let fake = try await GPSFake.start(log: log, secondsPerSentence: 0.004)
        defer { Task { await fake.stop() } }
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: fake.port), log: .silent)
        let end = try #require(replayed.last).time
        let fromGPSD = await firstFixes(source.fixes(), count: replayed.count, timeout: .seconds(40),
                                        last: { $0.time == end })
        await fake.stop()

        // The whole log, or all of it after the first few epochs (see `startOfRun`).
        let start = try #require(startOfRun(fromGPSD, in: replayed, key: \.time),
                                 "gpsd's \(fromGPSD.count) fixes are not a run of the replay's times")
        #expect(start < 30)
        #expect(start + fromGPSD.count == replayed.count)
        var worst = 0.0
        for (a, b) in zip(fromGPSD, replayed[start...]) {
            worst = max(worst, abs(a.latitude - b.latitude), abs(a.longitude - b.longitude))
        }
        #expect(worst < 1e-7, "largest difference \(worst)°")
    }

    @Test func gpsdAndTheNMEAReplayAgreeOnTheFirstThreeHundredEpochsOfTheMultiGNSSDrive() async throws {
        let log = Paths.fixture("drive-multignss-1hz.nmea")
        try #require(FileManager.default.fileExists(atPath: log.path), "Fixtures/drive-multignss-1hz.nmea is absent")
        let replay = try NMEAReplaySource(path: log.path, speed: 0)
        var replayed: [Fix] = []
        for try await fix in replay.fixes() {
            replayed.append(fix)
            if replayed.count == 300 { break }
        }
        let fake = try await GPSFake.start(log: log, secondsPerSentence: 0.001)
        defer { Task { await fake.stop() } }
        let source = GPSDSource(endpoint: GPSDEndpoint(host: "127.0.0.1", port: fake.port), log: .silent)
        let end = try #require(replayed.last).time
        let fromGPSD = await firstFixes(source.fixes(), count: replayed.count, timeout: .seconds(30),
                                        last: { $0.time >= end })
        await fake.stop()

        let start = try #require(startOfRun(fromGPSD, in: replayed, key: \.time),
                                 "gpsd's \(fromGPSD.count) fixes are not a run of the replay's times")
        #expect(start < 60)
        #expect(start + fromGPSD.count == replayed.count)
        var worst = 0.0
        for (index, (a, b)) in zip(fromGPSD, replayed[start...]).enumerated() {
            worst = max(worst, abs(a.latitude - b.latitude), abs(a.longitude - b.longitude))
            // gpsd's first report of a connection's first epoch comes from RMC alone (2D); the
            // source takes the first report of each time, so only that one may differ in mode.
            if index > 0 { #expect(a.mode == b.mode, "\(a.time)") }
        }
        #expect(worst < 1e-7, "largest difference \(worst)°")
    }
}
