import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Issue 22: no periodic timer while idle. A livelocd connected to a gpsd that sends nothing, with
/// no share, has nothing to do: none of its threads may wake on a timer of its own (libdispatch's
/// workqueue monitor woke it once a second before PoolExecutor and ReadinessPoller). Nor may a
/// `liveloc share` waiting for its first fix.
@Suite(.serialized,
       .disabled(if: Sanitizer.current != nil,
                 "a sanitizer's runtime has a thread of its own in the process that wakes 10 times a second (ThreadSanitizer's background thread)"))
struct IdleWakeUpsTests {
    /// A "gpsd" that takes connections (the kernel's backlog) and never sends a byte: its port.
    private func silentGPSD() throws -> (listener: Int32, port: UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        try #require(bound)
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    @Test func anIdleDaemonDoesNotWakeUpOnATimer() async throws {
        let gpsd = try silentGPSD()
        defer { close(gpsd.listener) }
        let harness = try DaemonHarness()
        let daemon = try await harness.launchGPSD(port: gpsd.port)
        defer { daemon.send(SIGKILL) }
        try await expectNoTimerWakeUps(of: daemon.pid)
    }

    @Test func aShareWaitingForItsFirstFixDoesNotWakeUpOnATimer() async throws {
        let gpsd = try silentGPSD()
        defer { close(gpsd.listener) }
        let share = try await DaemonProcess(Paths.executable("liveloc"), ["share", "--duration", "15m", "--gpsd", "127.0.0.1:\(gpsd.port)"])
        defer { share.send(SIGKILL) }
        try await share.waitForLine(.stderr) { $0.contains("connected") }
        try await expectNoTimerWakeUps(of: share.pid)
    }

    /// Over 5 s, after 2 s for start-up's own work (a deadline or two) to settle: at most one
    /// wake-up in all of the process's threads (a timer ticking once a second makes 5).
    private func expectNoTimerWakeUps(of pid: Int32) async throws {
        try await Task.sleep(for: .seconds(2))
        let before = try wakeUps(of: pid)
        try await Task.sleep(for: .seconds(5))
        let after = try wakeUps(of: pid)
        let woken = after.filter { $0.value > (before[$0.key] ?? 0) }.map { "\($0.key): \($0.value - (before[$0.key] ?? 0))" }
        let total = after.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
        #expect(total <= 1, "in 5 s idle: \(woken.sorted())")
    }

    /// Voluntary context switches per thread ("TID name"), from /proc/PID/task/*/status.
    private func wakeUps(of pid: Int32) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches") }),
                  let count = Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
            else { continue }
            counts["\(task) \(name)"] = count
        }
        return counts
    }
}
