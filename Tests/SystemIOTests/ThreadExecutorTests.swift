#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Locking
@testable import SystemIO
import Testing

/// A ThreadExecutor runs its jobs on its one thread, and a watched descriptor's handler there too,
/// between jobs, each time the descriptor is readable, until the handler unwatches it.
@Suite struct ThreadExecutorTests {
    final class Seen: Sendable {
        let bytes = Locked<[UInt8]>([])
        let threads = Locked<Set<String>>([])
    }

    /// The calling thread's name, as /proc/thread-self/comm has it.
    private func currentThreadName() -> String {
        let descriptor = open("/proc/thread-self/comm", O_RDONLY)
        defer { close(descriptor) }
        var name = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor, &name, name.count)
        return String(decoding: name.prefix(max(0, count)), as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test func aWatchedDescriptorsHandlerRunsOnTheExecutorsThreadEachTimeItIsReadableUntilItUnwatches() async throws {
        let executor = try ThreadExecutor(name: "test-watch")
        defer { executor.shutdown() }
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let (reader, writer) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        defer { reader.close(); writer.close() }
        try reader.setNonBlocking()
        let seen = Seen()
        let done = Handoff<Int>()
        executor.watchReadable(reader.rawValue) { [self] in
            seen.threads.withLock { _ = $0.insert(currentThreadName()) }
            var byte: UInt8 = 0
            while read(reader.rawValue, &byte, 1) == 1 {
                let count = seen.bytes.withLock { bytes -> Int in
                    bytes.append(byte)
                    return bytes.count
                }
                if byte == 0 {  // the last one: no more calls after this, nor reads in this one
                    executor.unwatch(reader.rawValue)
                    done.deliver(count)
                    return
                }
            }
        }
        // Written in three parts, a job queued between them: each part reaches the handler.
        try writer.writeAll([1, 2])
        try await Task.sleep(for: .milliseconds(50))
        let ranThere = Task(executorPreference: executor) { [self] in currentThreadName() }
        #expect(await ranThere.value == "test-watch")
        try writer.writeAll([3])
        try await Task.sleep(for: .milliseconds(50))
        try writer.writeAll([4, 0])
        let count = await Task.detached { done.wait() }.value
        #expect(count == 5)
        try writer.writeAll([9])  // unwatched: nobody reads it
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.bytes.withLock { $0 } == [1, 2, 3, 4, 0])
        #expect(seen.threads.withLock { $0 } == ["test-watch"])
    }
}
