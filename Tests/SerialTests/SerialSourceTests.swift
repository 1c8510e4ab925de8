import Foundation
import Glibc
import LiveLocation
import NMEA
import Replay
import Retry
import Synchronization
@testable import Serial
import SystemIO
import Testing
import TestSupport

extension SerialTiming {
    /// Short waits, so that a test sees several reopen attempts and rate changes in a second or two.
    static var quick: SerialTiming {
        var timing = SerialTiming()
        timing.probeWindow = .milliseconds(500)
        timing.silence = .seconds(3)
        timing.reopenBackoff = Backoff(initial: .milliseconds(50), cap: .milliseconds(300))
        return timing
    }
}

/// The first `epochs` epochs of the bundled drive (an epoch starts at each RMC), as the receiver
/// sent them.
func driveExcerpt(epochs: Int, skipping skipped: Int = 0) throws -> String {
    let text = try String(contentsOf: Paths.fixture("drive-multignss-1hz.nmea"), encoding: .utf8)
    var result = ""
    var seen = 0
    for line in text.split(whereSeparator: \.isNewline) {
        if line.contains("RMC,") { seen += 1 }
        if seen > skipped + epochs { break }
        if seen > skipped { result += line + "\r\n" }
    }
    return result
}

/// The fixes of `text` replayed from a file, as fast as possible.
func replayedFixes(_ text: String) async throws -> [Fix] {
    let file = try Paths.temporaryDirectory("serial-replay").appendingPathComponent("excerpt.nmea")
    try text.write(to: file, atomically: true, encoding: .utf8)
    var fixes: [Fix] = []
    for try await fix in try NMEAReplaySource(path: file.path, speed: 0).fixes() { fixes.append(fix) }
    return fixes
}

@Suite(.serialized) struct SerialSourceTests {
    /// A receiver at 9600 baud, through a /dev/serial/by-id style link: the source opens it raw and
    /// exclusive at 9600 baud and gives exactly the fixes the same bytes give replayed from a file.
    @Test func driveWrittenAt9600BaudGivesTheSameFixesAsItsReplay() async throws {
        let excerpt = try driveExcerpt(epochs: 6)
        let expected = try await replayedFixes(excerpt)
        #expect(expected.count == 6)

        let receiver = try PseudoReceiver()
        let link = DeviceLink(in: try Paths.temporaryDirectory("serial"))
        defer { link.remove() }
        try link.point(to: receiver.slavePath)
        let logs = LogLines()
        let source = SerialSource(path: link.path, baud: .fixed(9600), timing: .quick, log: logs.logger)
        let collected = CollectedFixes()
        let consumer = Task { for await fix in source.fixes() { collected.append(fix) } }
        defer { consumer.cancel() }

        #expect(await eventually(timeout: .seconds(20)) { source.state == .open(baud: 9600, detected: false) })
        #expect(receiver.readerBaud == 9600)
        #expect(receiver.isExclusive)
        #expect(logs.contains("open at 9600 baud (\(receiver.slavePath))"))

        // The writer sleeps between pieces: on a thread of its own, not the cooperative pool.
        try await onThread { receiver.writePaced(excerpt) }
        #expect(await eventually(timeout: .seconds(20)) { collected.count >= expected.count })
        #expect(collected.all == expected, "logs: \(logs.all)")
    }

    /// What a pty can show of `auto`: a pty carries bytes whatever its speed setting, so the fake
    /// receiver plays the part of a UART itself. It "runs at 38400 baud": while the source's side is
    /// set to another rate, it sends what a receiver at a mismatched rate gives, bytes that are no
    /// NMEA (random, and without `$` so that chance cannot make a sentence); once the source sets
    /// 38400, it sends the drive. The source must reject the rates it tries first and choose 38400
    /// because only there checksummed sentences arrive. What a pty cannot show: real framing
    /// errors and bit timing, which are the UART driver's business.
    @Test func automaticBaudFindsTheRateWhereChecksummedSentencesArrive() async throws {
        let receiver = try PseudoReceiver()
        let link = DeviceLink(in: try Paths.temporaryDirectory("serial"))
        defer { link.remove() }
        try link.point(to: receiver.slavePath)
        let excerpt = Array(try driveExcerpt(epochs: 30).utf8)
        let ratesSeen = Shared<[Int]>([])
        let stop = Shared(false)
        let writerStarted = Shared(false)
        let writer = Task { try await onThread {
            var generator = SystemRandomNumberGenerator()
            var offset = 0
            let deadline = ContinuousClock.now + .seconds(20)
            while !stop.value, ContinuousClock.now < deadline, offset < excerpt.count {
                let rate = receiver.readerBaud
                if let rate { ratesSeen.update { if $0.last != rate { $0.append(rate) } } }
                writerStarted.value = true
                if rate == 38400 {
                    let end = min(excerpt.count, offset + 192)
                    receiver.write(Array(excerpt[offset..<end]))
                    offset = end
                } else {
                    receiver.write((0..<64).map { _ in
                        let byte = UInt8.random(in: 0...255, using: &generator)
                        return byte == UInt8(ascii: "$") ? 0 : byte
                    })
                }
                usleep(50_000)
            }
        } }
        defer { stop.value = true }
        // The fake receiver runs before the source opens it, so that it sees every rate tried.
        #expect(await eventually(timeout: .seconds(20)) { writerStarted.value })

        let logs = LogLines()
        let source = SerialSource(path: link.path, baud: .automatic, timing: .quick, log: logs.logger)
        let collected = CollectedFixes()
        let consumer = Task { for await fix in source.fixes() { collected.append(fix) } }
        defer { consumer.cancel() }

        #expect(await eventually(timeout: .seconds(15)) { source.state == .open(baud: 38400, detected: true) })
        #expect(logs.contains("38400 baud (detected)"))
        #expect(await eventually(timeout: .seconds(20)) { collected.count >= 2 })
        stop.value = true
        try await writer.value
        // 9600 and 4800 come first in the detection order; garbage there made the source move on.
        let rates = ratesSeen.value
        #expect(Array(rates.prefix(3)) == [9600, 4800, 38400], "rates the source set: \(rates)")
    }

    /// Closing the other end of the pty is an unplug (the source's side hangs up); a new pty behind
    /// the same link is the receiver plugged back in. The fixes sequence does not end in between.
    @Test func unplugAndReplugAreSurvived() async throws {
        let first = try PseudoReceiver()
        let link = DeviceLink(in: try Paths.temporaryDirectory("serial"))
        defer { link.remove() }
        try link.point(to: first.slavePath)
        let logs = LogLines()
        let source = SerialSource(path: link.path, baud: .fixed(9600), timing: .quick, log: logs.logger)
        let collected = CollectedFixes()
        let consumer = Task { for await fix in source.fixes() { collected.append(fix) } }
        defer { consumer.cancel() }

        #expect(await eventually(timeout: .seconds(20)) { source.state == .open(baud: 9600, detected: false) })
        first.write(Array(try driveExcerpt(epochs: 3).utf8))
        #expect(await eventually(timeout: .seconds(20)) { collected.count >= 3 })

        first.unplug()
        link.remove()
        #expect(await eventually(timeout: .seconds(20)) {
            if case .waitingForDevice = source.state { return true } else { return false }
        })
        #expect(logs.contains("unplugged"))
        #expect(await eventually(timeout: .seconds(20)) { logs.contains("waiting for the device") })

        let second = try PseudoReceiver()
        try link.point(to: second.slavePath)
        #expect(await eventually(timeout: .seconds(20)) { source.state == .open(baud: 9600, detected: false) })
        second.write(Array(try driveExcerpt(epochs: 3, skipping: 3).utf8))
        #expect(await eventually(timeout: .seconds(20)) { collected.count >= 6 })
        let times = collected.all.map(\.time)
        #expect(times == (0..<6).map { Timestamp(iso8601: "2026-03-14T08:00:0\($0).000Z")! })
        #expect(logs.all.filter { $0.contains("unplugged") }.count == 1)
    }

    /// A device that is not there yet is waited for with one log line however many attempts fail,
    /// and opened when it appears.
    @Test func absentDeviceIsWaitedForWithOneLogLine() async throws {
        let link = DeviceLink(in: try Paths.temporaryDirectory("serial"))
        defer { link.remove() }
        let logs = LogLines()
        let source = SerialSource(path: link.path, baud: .fixed(4800), timing: .quick, log: logs.logger)
        let consumer = Task { for await _ in source.fixes() {} }
        defer { consumer.cancel() }

        #expect(await eventually(timeout: .seconds(20)) {
            if case .waitingForDevice(let reason) = source.state { return reason.contains("ENOENT") }
            return false
        })
        try await Task.sleep(for: .seconds(1))  // several attempts at 50-300 ms
        #expect(logs.all.filter { $0.contains("waiting for the device") }.count == 1, "\(logs.all)")

        let receiver = try PseudoReceiver()
        try link.point(to: receiver.slavePath)
        #expect(await eventually(timeout: .seconds(20)) { source.state == .open(baud: 4800, detected: false) })
        #expect(receiver.readerBaud == 4800)
    }

    /// A path that is no terminal cannot be used: the source says why and keeps trying.
    @Test func fileThatIsNoTerminalIsRefusedWithItsReason() async throws {
        let file = try Paths.temporaryDirectory("serial").appendingPathComponent("not-a-tty")
        try Data("$GPRMC\n".utf8).write(to: file)
        let logs = LogLines()
        let source = SerialSource(path: file.path, baud: .automatic, timing: .quick, log: logs.logger)
        let consumer = Task { for await _ in source.fixes() {} }
        defer { consumer.cancel() }
        #expect(await eventually(timeout: .seconds(20)) { logs.contains("cannot open") })
        #expect(logs.all.first { $0.contains("cannot open") }?.contains("ENOTTY") == true, "\(logs.all)")
    }
}

@Suite struct BaudProbeTests {
    @Test func twoChecksummedSentencesRecogniseTheRate() {
        var probe = BaudProbe()
        let text = "$GPGSV,3,1,11,03,03,111,00*4A\r\n" + "$GPZDA,101010.00,02,12,2026,00,00*6B\r\n"
        Array(text.utf8).withUnsafeBytes { probe.feed($0) }
        #expect(probe.checksummedSentences == 1)  // the first has a wrong checksum
        Array(try! driveExcerpt(epochs: 1).utf8).withUnsafeBytes { probe.feed($0) }
        #expect(probe.recognized)
    }

    @Test func garbageAndSentencesWithoutChecksumDoNotRecogniseARate() {
        var probe = BaudProbe()
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        garbage.withUnsafeBytes { probe.feed($0) }
        let unchecked = "$GPRMC,101010,A,5230.000,N,01324.000,E,0.0,0.0,021226,,,A\r\n"
        Array((unchecked + unchecked).utf8).withUnsafeBytes { probe.feed($0) }
        #expect(!probe.recognized)
    }
}

@Suite struct SerialBaudTests {
    @Test func parsesAutoAndTheUsualRatesOnly() {
        #expect(SerialBaud(argument: "auto") == .automatic)
        #expect(SerialBaud(argument: "115200") == .fixed(115200))
        #expect(SerialBaud(argument: "1200") == nil)
        #expect(SerialBaud(argument: "9600 ") == nil)
        #expect(SerialBaud.detectionOrder.sorted() == SerialBaud.rates)
    }
}
