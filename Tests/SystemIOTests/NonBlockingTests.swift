import Foundation
import SystemIO
import Testing

/// `FileDescriptor.setNonBlocking` and the pipes made with it, on real pipes.
@Suite struct NonBlockingTests {
    /// Whether the descriptor's `O_NONBLOCK` is set, as the kernel has it.
    func isNonBlocking(_ descriptor: FileDescriptor) -> Bool {
        fcntl(descriptor.rawValue, F_GETFL) & O_NONBLOCK != 0
    }

    /// Reads one byte: the count, or the errno of a failure.
    func readOne(_ descriptor: FileDescriptor) -> Result<Int, SystemError> {
        var byte: UInt8 = 0
        let count = read(descriptor.rawValue, &byte, 1)
        return count >= 0 ? .success(count) : .failure(SystemError("read"))
    }

    @Test func anEmptyPipeMadeNonBlockingAnswersAtOnceAndWaitsAgainWhenMadeBlocking() throws {
        let (reader, writer) = try FileDescriptor.makePipe()
        defer { reader.close(); writer.close() }
        #expect(!isNonBlocking(reader))

        try reader.setNonBlocking()
        #expect(isNonBlocking(reader))
        #expect(readOne(reader) == .failure(SystemError("read", errno: .resourceTemporarilyUnavailable)))
        try reader.setNonBlocking()  // already so: nothing changes
        #expect(isNonBlocking(reader))

        try reader.setNonBlocking(false)
        #expect(!isNonBlocking(reader))
        try writer.writeAll([7])
        #expect(readOne(reader) == .success(1))
        #expect(!isNonBlocking(writer), "only the descriptor asked changes")
    }

    @Test func aPipesEndsAreNonBlockingAsAsked() throws {
        let plain = try FileDescriptor.makePipe()
        defer { plain.reader.close(); plain.writer.close() }
        #expect(!isNonBlocking(plain.reader) && !isNonBlocking(plain.writer))

        let reading = try FileDescriptor.makePipe(nonBlockingReader: true)
        defer { reading.reader.close(); reading.writer.close() }
        #expect(isNonBlocking(reading.reader) && !isNonBlocking(reading.writer))
        #expect(readOne(reading.reader) == .failure(SystemError("read", errno: .resourceTemporarilyUnavailable)))

        let writing = try FileDescriptor.makePipe(nonBlockingWriter: true)
        defer { writing.reader.close(); writing.writer.close() }
        #expect(!isNonBlocking(writing.reader) && isNonBlocking(writing.writer))
        // Nobody reads: the writer fills the pipe (64 KiB on Linux) and is then refused, never waits.
        let chunk = [UInt8](repeating: 0, count: 4096)
        var refused: Errno?
        for _ in 0..<1024 where refused == nil {
            if chunk.withUnsafeBytes({ write(writing.writer.rawValue, $0.baseAddress, $0.count) }) < 0 { refused = .current }
        }
        #expect(refused == .resourceTemporarilyUnavailable)

        let both = try FileDescriptor.makePipe(nonBlockingReader: true, nonBlockingWriter: true)
        defer { both.reader.close(); both.writer.close() }
        #expect(isNonBlocking(both.reader) && isNonBlocking(both.writer))
    }

    @Test func aDescriptorThatIsNotOpenIsAnErrorNamingTheTarget() {
        #expect(throws: SystemError("fcntl", target: "fd -1", errno: .badFileDescriptor)) {
            try FileDescriptor(rawValue: -1).setNonBlocking(target: "fd -1")
        }
    }
}
