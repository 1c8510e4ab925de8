import Foundation
import Testing
import TestSupport

/// `liveloc start|stop|status` is bounded as a whole, connecting included: against a daemon that
/// never accepts or never answers it gives up within its timeout with one line and exit status 1.
@Suite struct ControlClientTimeoutTests {
    /// A socket that listens with backlog 0 and never accepts, its backlog filled: a connect to it
    /// neither succeeds nor fails until the connection is given up.
    final class StuckListener: Sendable {
        let path: String
        private let descriptors: [Int32]

        init(filled: Bool) throws {
            let path = try Paths.temporaryDirectory("stuck").appendingPathComponent("control.sock").path
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard Self.withAddress(path, { bind(listener, $0, $1) }) == 0, listen(listener, 0) == 0 else { throw POSIXError(.EIO) }
            var descriptors = [listener]
            if filled {
                // Backlog 0 holds one connection; the next connect fails with EAGAIN: full.
                var full = false
                for _ in 0..<8 where !full {
                    let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                    descriptors.append(client)
                    full = Self.withAddress(path, { connect(client, $0, $1) }) != 0 && errno == EAGAIN
                }
                guard full else { throw POSIXError(.EIO) }
            }
            self.path = path
            self.descriptors = descriptors
        }

        deinit { for fd in descriptors { close(fd) } }

        static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
    }

    @Test(arguments: [["status"], ["stop"], ["start", "--duration", "15m"]])
    func theCLIGivesUpWithinItsTimeoutWhenTheSocketNeverAccepts(command: [String]) async throws {
        let stuck = try StuckListener(filled: true)
        let started = ContinuousClock.now
        let result = try await runProcess(Paths.executable("liveloc"), command + ["--socket", stuck.path, "--timeout", "1"])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("did not accept a connection on \(stuck.path) within 1 s"), "\(result.stderr)")
        // The upper bound leaves room for starting the process on a loaded machine (a sanitizer
        // build under load took over 3 s) and still tells the 1 s timeout from the 10 s default.
        #expect(elapsed >= .milliseconds(900) && elapsed < .seconds(8), "returned after \(elapsed)")
    }

    @Test func theCLIGivesUpWithinItsTimeoutWhenTheDaemonAcceptsButNeverAnswers() async throws {
        let stuck = try StuckListener(filled: false)  // the connection waits in the backlog: connected, unread
        let started = ContinuousClock.now
        let result = try await runProcess(Paths.executable("liveloc"), ["status", "--socket", stuck.path, "--timeout", "1.5"])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 1)
        #expect(result.stderr == "liveloc: status: livelocd did not answer on \(stuck.path) within 1.5 s\n")
        #expect(elapsed >= .milliseconds(1400) && elapsed < .seconds(8), "returned after \(elapsed)")
    }

    @Test func aBadTimeoutIsAUsageError() async throws {
        let result = try await runProcess(Paths.executable("liveloc"), ["status", "--timeout", "-1", "--socket", "/nonexistent.sock"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--timeout"))
    }
}
