import Foundation
import Locking
import SystemIO
import Testing
import TestSupport

/// The live sources' skeleton (LiveSession, LiveSource.run) on real threads and a real pipe,
/// without a receiver: what gpsd's and the serial source's sessions rely on.
@Suite struct LiveSourceTests {
    enum End: LiveSessionEnd {
        case failed
        case cancelled
    }

    /// A session that blocks in `read` on a pipe until its wake-up writes to it.
    final class BlockingSession: LiveSession {
        let cancellation = SessionCancellation()
        let pipe: (reader: FileDescriptor, writer: FileDescriptor)
        let blocking = Locked(false)
        var threadName: String { "test session" }

        init() throws {
            pipe = try FileDescriptor.makePipe()
        }

        deinit {
            pipe.reader.close()
            pipe.writer.close()
        }

        func readUntilEnd() -> LiveSessionOutcome<End> {
            guard cancellation.register(wake: { [writer = pipe.writer] in try? writer.writeAll([1]) }) else {
                return LiveSessionOutcome(end: .cancelled, receivedData: false)
            }
            defer { cancellation.unregister() }
            blocking.withLock { $0 = true }
            var byte: UInt8 = 0
            let count = withUnsafeMutableBytes(of: &byte) { (try? pipe.reader.read(into: $0)) ?? -1 }
            return LiveSessionOutcome(end: cancellation.isCancelled ? .cancelled : .failed, receivedData: count > 0)
        }

        func end(threadNotStarted error: SystemError) -> End { .failed }
    }

    /// A session that ends at once as `ends` says.
    struct ScriptedSession: LiveSession {
        let cancellation = SessionCancellation()
        let outcome: LiveSessionOutcome<End>
        var threadName: String { "test session" }
        func readUntilEnd() -> LiveSessionOutcome<End> { outcome }
        func end(threadNotStarted error: SystemError) -> End { .failed }
    }

    @Test func cancellingTheCallingTaskWakesASessionBlockedInARead() async throws {
        let session = try BlockingSession()
        let ended = Locked<[End]>([])
        let returned = Locked(false)
        let task = Task {
            await LiveSource.run(makeSession: { session }, delay: { _ in .seconds(60) },
                                 ended: { outcome, _ in ended.withLock { $0.append(outcome.end) } })
            returned.withLock { $0 = true }
        }
        let started = ContinuousClock.now
        while !session.blocking.withLock({ $0 }) && ContinuousClock.now - started < .seconds(5) {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(session.blocking.withLock { $0 }, "the session's thread never blocked")
        let cancelledAt = ContinuousClock.now
        task.cancel()
        while !returned.withLock({ $0 }) && ContinuousClock.now - cancelledAt < .seconds(1) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let woken = returned.withLock { $0 }
        #expect(woken, "the blocked read was not woken within 1 s")
        if !woken { try session.pipe.writer.writeAll([1]) }  // lets the thread end
        await task.value
        #expect(session.cancellation.isCancelled)
        // A cancelled session ends the source: no wait, no `ended`.
        #expect(ended.withLock { $0 }.isEmpty)
    }

    @Test func aSessionCancelledBeforeItsThreadBlocksDoesNotBlock() async throws {
        let session = try BlockingSession()
        session.cancel()
        let outcome = await session.run()
        #expect(outcome.isCancelled && !outcome.receivedData)
        #expect(!session.blocking.withLock { $0 })
    }

    @Test func sessionsFollowOneAnotherWithTheSourcesWaitsUntilOneEndsCancelled() async {
        let script: [LiveSessionOutcome<End>] = [
            .init(end: .failed, receivedData: false), .init(end: .failed, receivedData: true),
            .init(end: .failed, receivedData: false), .init(end: .cancelled, receivedData: false),
        ]
        var made = 0
        var delays: [Bool] = []
        var ended: [(End, Duration)] = []
        var retries = 0
        await LiveSource.run(
            makeSession: {
                defer { made += 1 }
                return ScriptedSession(outcome: script[min(made, script.count - 1)])
            },
            delay: { receivedData in
                delays.append(receivedData)
                return .milliseconds(delays.count)
            },
            ended: { outcome, wait in ended.append((outcome.end, wait)) },
            retrying: { retries += 1 })
        #expect(made == 4)
        #expect(delays == [false, true, false])
        #expect(ended.map(\.0) == [.failed, .failed, .failed])
        #expect(ended.map(\.1) == [.milliseconds(1), .milliseconds(2), .milliseconds(3)])
        #expect(retries == 3)
    }

    @Test func aFailureIsNewsOncePerReasonUntilForgotten() {
        var failures = RepeatedFailure()
        var news: [Bool] = []
        for reason in ["connection refused", "connection refused", "no route to host", "connection refused"] {
            news.append(failures.isNews(reason))
        }
        failures.forget()
        news.append(failures.isNews("connection refused"))
        #expect(news == [true, false, true, true, true])
    }
}
