import Foundation
import Testing
import TestSupport

/// `liveloc share` as a user runs it: the real executable, a bundled fixture, stdout parsed as JSON.
@Suite struct ShareCommandTests {
    let liveloc = Paths.executable("liveloc")
    let drive = Paths.fixture("drive-multignss-1hz.nmea").path

    func events(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// `pipe`'s output as it comes, read on a thread of its own: the pipe never fills (a process
    /// blocked on a full stdout would not stop), however long the test waits for something else.
    func chunks(_ pipe: Pipe) -> AsyncStream<Data> {
        AsyncStream { continuation in
            Thread.detachNewThread {
                while case let chunk = pipe.fileHandleForReading.availableData, !chunk.isEmpty { continuation.yield(chunk) }
                continuation.finish()
            }
        }
    }

    /// Adds `chunks` to `data` until its text satisfies `condition` or the output ends.
    func read(_ chunks: inout AsyncStream<Data>.Iterator, into data: inout Data, until condition: (String) -> Bool = { _ in false }) async {
        while !condition(String(decoding: data, as: UTF8.self)), let chunk = await chunks.next() { data.append(chunk) }
    }

    /// Whether one of `text`'s whole lines is a JSON event that satisfies `condition`.
    func hasEvent(_ text: String, where condition: ([String: Any]) -> Bool) -> Bool {
        text.split(separator: "\n").dropLast(text.hasSuffix("\n") ? 0 : 1).contains { jsonObject(String($0)).map(condition) ?? false }
    }

    @Test func aFifteenMinuteShareOverTheDriveEndsWithAFinalInactiveUpdateAtItsExpiryThenEndedExpired() async throws {
        let result = try await runProcess(liveloc, ["share", "--duration", "15m", "--replay", drive, "--speed", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try events(result.stdout)
        #expect(lines.count > 800)
        #expect(lines.enumerated().allSatisfy { ($0.element["seq"] as? Int) == $0.offset + 1 })
        let final = try #require(lines[lines.count - 2]["location"] as? [String: Any])
        #expect(lines[lines.count - 2]["event"] as? String == "updated")
        #expect(final["isActive"] as? Bool == false)
        let started = try #require(final["startedAt"] as? String)
        #expect(started == "2026-03-14T08:00:00.000Z")
        #expect(final["expiresAt"] as? String == "2026-03-14T08:15:00.000Z")
        #expect(lines.last?["event"] as? String == "ended")
        #expect(lines.last?["reason"] as? String == "expired")
        let updates = lines.dropLast(2).compactMap { $0["location"] as? [String: Any] }
        #expect(updates.allSatisfy { $0["isActive"] as? Bool == true && $0["latitude"] is Double && $0["longitude"] is Double })
    }

    @Test func interruptingAShareStopsItWithAFinalUpdateAndEndedThenExitsZero() async throws {
        let process = Process()
        process.executableURL = liveloc
        process.arguments = ["share", "--duration", "1h", "--replay", drive, "--speed", "20"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try await process.runAsTestChild()
        // Wait for the first event (at most 30 s), then interrupt. The blocking reads and the wait
        // run on threads of their own (`onThread`): on the cooperative pool (two threads here) they
        // would hold up the other tests' sleeps and timers, this one's killer included.
        let killer = Task { try await Task.sleep(for: .seconds(30)); process.terminate() }
        var received = try await onThread { () -> Data in
            var data = Data()
            while !data.contains(UInt8(ascii: "\n")) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return data
        }
        kill(process.processIdentifier, SIGINT)
        received.append(try await onThread { out.fileHandleForReading.readDataToEndOfFile() })
        try await onThread { process.waitUntilExit() }
        killer.cancel()
        #expect(process.terminationStatus == 0)
        let lines = try events(String(decoding: received, as: UTF8.self))
        #expect(lines.count >= 3 && lines.count < 1000)
        #expect(lines.last?["reason"] as? String == "stopped")
        let final = try #require(lines[lines.count - 2]["location"] as? [String: Any])
        #expect(final["isActive"] as? Bool == false)
    }

    /// issue 23: `timeout -s INT N liveloc share …` signals liveloc and then its process group: two
    /// signals a moment apart. They are one request to stop: the share ends with its final update
    /// and `ended`, and liveloc exits 0 (1 run in 7 lost both before).
    @Test func gnuTimeoutsTwoSignalsEndTheShareWithItsFinalUpdateAndEnded() async throws {
        for run in 1...3 {
            let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/timeout"),
                                              ["--preserve-status", "-s", "INT", "2", liveloc.path, "share", "--duration", "1h", "--replay", drive, "--speed", "20"],
                                              timeout: .seconds(30))
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            let lines = try events(result.stdout)
            #expect(lines.last?["event"] as? String == "ended" && lines.last?["reason"] as? String == "stopped", "run \(run)")
            let final = lines.count >= 2 ? lines[lines.count - 2]["location"] as? [String: Any] : nil
            #expect(final?["isActive"] as? Bool == false, "run \(run)")
        }
    }

    /// Two signals 100 ms apart (at the same instant, the kernel would merge them into one), while the shutdown waits for a destination that cannot be
    /// reached (its drain timeout is 30 s): the share still ends on stdout (final update and
    /// `ended`), and liveloc exits when the first signal's moment (2 s) is over, not at once and
    /// not after the drain timeout; the undelivered events stay in the journal (exit status 130).
    @Test func aSecondSignalForcesTheExitOnlyAfterTheFirstHadTwoSeconds() async throws {
        let directory = try Paths.temporaryDirectory("share-signals")
        let secret = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secret)
        let deadPort = try GPSFake.freeLoopbackPort()
        let process = Process()
        process.executableURL = liveloc
        process.arguments = ["share", "--duration", "1h", "--replay", drive, "--speed", "20",
                             "--webhook", "http://127.0.0.1:\(deadPort)/hook", "--webhook-secret-file", secret.path,
                             "--state-directory", directory.appendingPathComponent("state").path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try await process.runAsTestChild()
        // a bound: SIGKILL, since a process that does not stop on a signal is what it would end
        let killer = Task { try await Task.sleep(for: .seconds(30)); kill(process.processIdentifier, SIGKILL) }
        defer { killer.cancel() }
        var stdout = chunks(out).makeAsyncIterator(), received = Data()
        await read(&stdout, into: &received) { hasEvent($0) { _ in true } }  // the share is under way
        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        // The first signal is being handled once the final update is out: the second cannot merge with it.
        await read(&stdout, into: &received) { hasEvent($0) { ($0["location"] as? [String: Any])?["isActive"] as? Bool == false } }
        kill(process.processIdentifier, SIGINT)
        await read(&stdout, into: &received)
        try await onThread { process.waitUntilExit() }
        let took = ContinuousClock.now - signalled
        let lines = try events(String(decoding: received, as: UTF8.self))

        #expect(process.terminationStatus == 130, "forced: the webhook's events stay in the journal")
        #expect(took >= .milliseconds(1900) && took < .seconds(10), "exited \(took) after the signals")
        #expect(lines.last?["event"] as? String == "ended" && lines.last?["reason"] as? String == "stopped")
        let final = lines.count >= 2 ? lines[lines.count - 2]["location"] as? [String: Any] : nil
        #expect(final?["isActive"] as? Bool == false)
    }

    /// issue 23: the state directory removed during `liveloc share`: the share's end cannot be made
    /// durable, so it is neither printed nor sent; liveloc says why and exits 1; what the journal
    /// held is written back for the next run.
    @Test func aStateDirectoryRemovedDuringAShareIsAnErrorAndItsJournalIsWrittenBack() async throws {
        let directory = try Paths.temporaryDirectory("share-state-removed")
        let secret = directory.appendingPathComponent("secret")
        try writeSecretFile("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n", to: secret)
        let state = directory.appendingPathComponent("state").path
        let process = Process()
        process.executableURL = liveloc
        process.arguments = ["share", "--duration", "1h", "--replay", drive, "--speed", "20", "--drain-timeout", "1",
                             "--webhook", "http://127.0.0.1:\(try GPSFake.freeLoopbackPort())/hook", "--webhook-secret-file", secret.path,
                             "--state-directory", state]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try await process.runAsTestChild()
        let killer = Task { try await Task.sleep(for: .seconds(30)); kill(process.processIdentifier, SIGKILL) }
        defer { killer.cancel() }
        var stdoutChunks = chunks(out).makeAsyncIterator(), stderrChunks = chunks(err).makeAsyncIterator()
        var stdout = Data(), stderr = Data()
        await read(&stdoutChunks, into: &stdout) { hasEvent($0) { _ in true } }  // the share is under way: its journal is written
        try FileManager.default.removeItem(atPath: state)
        await read(&stderrChunks, into: &stderr) { $0.contains("was removed while in use") }  // noticed at the next commit
        kill(process.processIdentifier, SIGINT)
        await read(&stdoutChunks, into: &stdout)
        await read(&stderrChunks, into: &stderr)
        try await onThread { process.waitUntilExit() }
        let lines = try events(String(decoding: stdout, as: UTF8.self))
        let errors = String(decoding: stderr, as: UTF8.self)

        #expect(process.terminationStatus == 1, "\(errors)")
        #expect(errors.contains("was removed while in use"), "\(errors)")
        #expect(lines.last?["event"] as? String != "ended", "an end that is not on disk is not printed")
        #expect(FileManager.default.fileExists(atPath: state + "/journal.sqlite"), "written back for the next run: \(errors)")
    }

    @Test func aDurationOtherThanTheThreeChoicesIsAOneLineErrorWithStatusTwo() async throws {
        let result = try await runProcess(liveloc, ["share", "--duration", "30m", "--replay", drive])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "liveloc: share: invalid value '30m' for --duration: expected 15m, 1h or 8h\n")
    }

    @Test func aMissingLogIsAOneLineErrorWithStatusTwo() async throws {
        let result = try await runProcess(liveloc, ["share", "--duration", "15m", "--replay", "/nonexistent.nmea"])
        #expect(result.status == 2)
        #expect(result.stderr == "liveloc: share: open /nonexistent.nmea: No such file or directory (ENOENT)\n")
    }

    /// A CA file is read when the first connection is made; one that is missing stops the share
    /// before it starts, with one line naming the option (exit status 2).
    @Test func aCAFileThatCannotBeReadIsAOneLineErrorNamingTheOption() async throws {
        let missing = try Paths.temporaryDirectory("share-ca-file").appendingPathComponent("missing-ca.pem").path
        for option in ["--webhook-ca-file", "--mqtt-ca-file", "--telegram-ca-file", "--traccar-ca-file"] {
            let result = try await runProcess(liveloc, ["share", "--duration", "15m", "--replay", drive, option, missing])
            #expect(result.status == 2, "\(option)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "liveloc: share: invalid value '\(missing)' for \(option): expected a readable file (No such file or directory)\n")
        }
    }

    @Test func helpIsAvailableForEveryCommand() async throws {
        for command in ["share", "decode", "fixes", "start", "stop", "status"] {
            let result = try await runProcess(liveloc, [command, "--help"])
            #expect(result.status == 0 && result.stdout.hasPrefix("usage: liveloc \(command)"), "\(command)")
        }
        let top = try await runProcess(liveloc, ["--help"])
        #expect(top.status == 0 && top.stdout.contains("share"))
    }

    @Test func anUnknownCommandIsAnErrorWithStatusTwo() async throws {
        let result = try await runProcess(liveloc, ["shaer"])
        #expect(result.status == 2 && result.stderr.contains("unknown command 'shaer'"))
    }
}
