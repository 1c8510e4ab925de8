import Foundation
import Testing
import TestSupport

/// `liveloc share --gpsd` against a real gpsd fed by gpsfake.
@Suite(.enabled(if: GPSFake.isAvailable, "gpsfake and gpsd are not installed"))
struct ShareFromGPSDTests {
    @Test func aShareFromGPSDSendsUpdatesAndEndsWithAFinalUpdateWhenTerminated() async throws {
        let fake = try await GPSFake.start(log: Paths.fixture("drive-multignss-1hz.nmea"), secondsPerSentence: 0.002)
        let process = Process()
        process.executableURL = Paths.executable("liveloc")
        process.arguments = ["share", "--duration", "15m", "--gpsd", "127.0.0.1:\(fake.port)"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.runAsTestChild()
        let killer = Task { try await Task.sleep(for: .seconds(30)); process.terminate() }
        // Read until five updates arrived (bounded by the 30 s killer), then SIGTERM.
        // The blocking reads and the wait on threads of their own, not on the cooperative pool.
        var received = try await onThread { () -> Data in
            var received = Data()
            while received.filter({ $0 == UInt8(ascii: "\n") }).count < 5 {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                received.append(chunk)
            }
            return received
        }
        kill(process.processIdentifier, SIGTERM)
        received.append(try await onThread { out.fileHandleForReading.readDataToEndOfFile() })
        try await onThread { process.waitUntilExit() }
        killer.cancel()
        await fake.stop()

        #expect(process.terminationStatus == 0)
        let events = try String(decoding: received, as: UTF8.self).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(events.count >= 7)
        #expect(events.last?["reason"] as? String == "stopped")
        let updates = events.dropLast().compactMap { $0["location"] as? [String: Any] }
        #expect(updates.dropLast().allSatisfy { $0["isActive"] as? Bool == true })
        #expect(updates.last?["isActive"] as? Bool == false)
        // The drive is in Munich: the positions are gpsd's, not made up.
        #expect(updates.allSatisfy { abs(($0["latitude"] as? Double ?? 0) - 48.2) < 0.3 })
    }
}
