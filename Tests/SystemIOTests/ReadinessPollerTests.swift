#if canImport(Glibc)
import Glibc
#endif
@testable import SystemIO
import Testing

/// `FileDescriptor.wait(until:deadline:)` on the poller thread: ends when the descriptor is ready,
/// at its deadline, or when cancelled, and leaves nothing watched or scheduled behind.
@Suite(.serialized) struct ReadinessPollerTests {
    /// A connected pair of Unix stream sockets.
    private func pair() throws -> (FileDescriptor, FileDescriptor) {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        return (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
    }

    @Test func aWaitEndsWhenTheDescriptorBecomesReadable() async throws {
        let (reader, writer) = try pair()
        defer { reader.close(); writer.close() }
        let waiting = Task { try await reader.wait(until: .readable, timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(100))
        try writer.writeAll([1])
        let start = ContinuousClock.now
        #expect(try await waiting.value == true)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aWaitEndsFalseAtItsDeadlineAndTheDescriptorCanBeWaitedOnAgain() async throws {
        let (reader, writer) = try pair()
        defer { reader.close(); writer.close() }
        let start = ContinuousClock.now
        #expect(try await reader.wait(until: .readable, timeout: .milliseconds(200)) == false)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        // Out of the epoll set: a second wait on the same descriptor is registered afresh.
        try writer.writeAll([1])
        #expect(try await reader.wait(until: .readable, timeout: .seconds(30)) == true)
    }

    @Test func aCancelledWaitThrowsCancellationErrorAtOnce() async throws {
        let (reader, writer) = try pair()
        defer { reader.close(); writer.close() }
        let waiting = Task { try await reader.wait(until: .readable, timeout: .seconds(600)) }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ContinuousClock.now - start < .seconds(5))
        try writer.writeAll([1])
        #expect(try await reader.wait(until: .readable, timeout: .seconds(30)) == true)
    }

    @Test func aWaitThatEndsReadyLeavesNoDeadlineBehind() async throws {
        let timer = try #require(DeadlineTimer.shared)
        let (reader, writer) = try pair()
        defer { reader.close(); writer.close() }
        try writer.writeAll([1])
        let waitingBefore = timer.waiting
        for _ in 0..<100 { #expect(try await reader.wait(until: .readable, timeout: .seconds(600)) == true) }
        // Other suites may add or end their own sleeps meanwhile; 100 forgotten deadlines would show.
        #expect(timer.waiting < waitingBefore + 10, "\(timer.waiting - waitingBefore) deadlines left by 100 waits")
    }

    @Test func aWritableDescriptorIsReadyAtOnce() async throws {
        let (reader, writer) = try pair()
        defer { reader.close(); writer.close() }
        #expect(try await writer.wait(until: .writable, timeout: .seconds(30)) == true)
    }
}
