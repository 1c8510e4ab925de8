import Foundation
import Testing
import TestSupport

/// Every child of the tests is started by `Process.runAsTestChild`: it must die with the test
/// process, which the kernel does for a child whose parent-death signal is set, when the thread that
/// started it ends. These check the two things that makes true.
struct ChildProcessTests {
    private static let report = """
        import ctypes
        value = ctypes.c_int()
        ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG
        blocked = [l.split()[1] for l in open("/proc/self/status") if l.startswith("SigBlk:")][0]
        print(value.value, blocked)
        """

    @Test func aChildHasSIGKILLAsParentDeathSignalAndNoBlockedSignals() async throws {
        // Started from a thread of its own that ends at once: the signal is tied to the spawner thread.
        let result = try await onThread { () -> Task<ProcessResult, any Error> in
            Task { try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", Self.report]) }
        }.value
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(SIGKILL) 0000000000000000\n")
    }

    @Test func aChildOutlivesTheThreadThatStartedIt() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        // Its first line comes after setpriv set the parent-death signal (before it ran python).
        process.arguments = ["-c", "import sys, time; print('ready'); sys.stdout.flush(); time.sleep(30)"]
        process.standardInput = FileHandle.nullDevice
        let out = Pipe()
        process.standardOutput = out
        // The thread that asks for the child waits for that line, then ends: a child tied to it
        // would be killed now.
        let first = try await onThread { () -> Data in
            try process.runAsTestChild()
            return out.fileHandleForReading.availableData
        }
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) }; process.waitUntilExit() }
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("ready"))
        try await Task.sleep(for: .milliseconds(500))
        let state = procFileText("/proc/\(process.processIdentifier)/stat") ?? ""
        #expect(process.isRunning && !state.isEmpty && !state.contains(") Z "), "killed: \(state)")
    }
}
