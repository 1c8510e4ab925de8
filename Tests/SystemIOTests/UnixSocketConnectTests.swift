import Foundation
import SystemIO
import Testing
import TestSupport

/// A connect to a Unix socket is bounded by its deadline, even when the listener never accepts.
@Suite struct UnixSocketConnectTests {
    @Test func connectGivesUpAtItsDeadlineWhenTheListenersBacklogIsFull() throws {
        let path = try Paths.temporaryDirectory("connect").appendingPathComponent("full.sock").path
        // Backlog 0: the kernel holds one pending connection, then refuses more with EAGAIN.
        let listener = try UnixSocket.listen(path: path, mode: 0o600, group: nil, backlog: 0)
        defer { listener.close() }
        var held: [UnixSocket] = []
        defer { held.forEach { $0.close() } }
        var full = false
        for _ in 0..<8 where !full {
            do { held.append(try UnixSocket.connect(path: path, deadline: .now)) } catch {
                #expect(error.errno == .timedOut)
                full = true
            }
        }
        #expect(full, "the backlog never filled")
        let started = ContinuousClock.now
        #expect(throws: SystemError("connect", target: path, errno: .timedOut)) {
            _ = try UnixSocket.connect(path: path, deadline: .now + .milliseconds(500))
        }
        let waited = ContinuousClock.now - started
        #expect(waited >= .milliseconds(450) && waited < .seconds(3), "waited \(waited)")
    }

    @Test func connectToAMissingSocketFailsAtOnceWithENOENT() throws {
        let path = try Paths.temporaryDirectory("connect").appendingPathComponent("none.sock").path
        #expect(throws: SystemError("connect", target: path, errno: .noSuchFileOrDirectory)) {
            _ = try UnixSocket.connect(path: path, deadline: .now + .seconds(5))
        }
    }
}
