import Foundation

extension Process {
    /// Starts the process, as `run()` does, so that it dies with the test process: however the test
    /// process ends (a crash, SIGKILL, a failed `#require` that skips a `stop()`), the kernel sends
    /// the child SIGKILL. Every child process of the tests is started through here.
    ///
    /// How: the child runs under `setpriv --pdeathsig KILL` (util-linux, which execs the program:
    /// same pid, same exit status), started from `ChildSpawner`'s one long-lived thread with an
    /// empty signal mask. The kernel sends the parent-death signal when the *thread* that started
    /// the child ends, and the threads of the cooperative pool and of `onThread` come and go; that
    /// thread lives as long as the test process. Its empty mask gives every child the default
    /// signal mask (a child started from a libdispatch worker inherited SIGTERM blocked).
    /// A program that starts children of its own must pass this on to them (gpsfake's gpsd: see
    /// `GPSFake`). An `executableURL` of `/usr/bin/setpriv` (to run as another user) gets the
    /// option added to its own; setpriv applies it after changing the credentials.
    ///
    /// - Throws: what `run()` throws; `ChildProcessError.notExecutable` when `executableURL` is
    ///   missing or not an executable file.
    public func runAsTestChild() throws {
        try wrapInSetpriv()
        try ChildSpawner.shared.perform { try self.run() }
    }

    /// `runAsTestChild()` for a task: it waits for the spawner thread without holding a thread of
    /// the cooperative pool (two on a 2-core machine). Blocking waits there stalled every test for
    /// up to 10 s at the start of a full run, when a hundred tests start children at once and
    /// their spawns queue on the one spawner thread.
    public func runAsTestChild() async throws {
        try wrapInSetpriv()
        try await ChildSpawner.shared.perform { try self.run() }
    }

    /// Ends the child, bounded in time: SIGTERM (to its whole process group when `wholeGroup` and it
    /// leads one: gpsfake and its gpsd), SIGKILL when it still runs `grace` later, then waits at
    /// most 5 s more for it to be reaped. Returns at once when it has ended; safe to call again.
    /// Blocks the calling thread (a `deinit`, a synchronous `stop`); a task calls `end`.
    /// The one way the tests' helpers stop a child they started.
    public func endBlocking(grace: Duration = .seconds(3), wholeGroup: Bool = false) {
        let pid = processIdentifier
        guard pid > 0 else { return }
        let target = wholeGroup && getpgid(pid) == pid ? -pid : pid
        let alive = { self.isRunning || (target < 0 && kill(target, 0) == 0) }
        guard alive() else { return }
        let clock = ContinuousClock()
        _ = kill(target, SIGTERM)
        let termDeadline = clock.now + grace
        while alive() && clock.now < termDeadline { usleep(20_000) }
        if alive() { _ = kill(target, SIGKILL) }
        let reapDeadline = clock.now + .seconds(5)
        while isRunning && clock.now < reapDeadline { usleep(20_000) }
    }

    /// `endBlocking` for a task: it waits on a thread of its own, not on the cooperative pool's.
    public func end(grace: Duration = .seconds(3), wholeGroup: Bool = false) async {
        nonisolated(unsafe) let process = self
        _ = try? await onThread { process.endBlocking(grace: grace, wholeGroup: wholeGroup) }
    }

    private func wrapInSetpriv() throws {
        guard let executable = executableURL, FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw ChildProcessError.notExecutable(executableURL?.path ?? "(none)")
        }
        if executable.path == ChildSpawner.setpriv {
            arguments = ChildSpawner.deathSignal + (arguments ?? [])
        } else {
            executableURL = URL(fileURLWithPath: ChildSpawner.setpriv)
            arguments = ChildSpawner.deathSignal + ["--", executable.path] + (arguments ?? [])
        }
    }
}

/// Why a child process could not be started.
public enum ChildProcessError: Error, CustomStringConvertible {
    case notExecutable(String)

    public var description: String {
        switch self {
        case .notExecutable(let path): "not an executable file: \(path)"
        }
    }
}

/// The one thread that starts every child process of the tests (see `Process.runAsTestChild`).
/// Requests and results pass under one NSCondition (a pthread mutex and condition variable, which
/// ThreadSanitizer sees, unlike a Mutex's or a DispatchSemaphore's futex calls).
package final class ChildSpawner: @unchecked Sendable {
    /// util-linux's setpriv (Debian's essential util-linux package: always installed).
    package static let setpriv = "/usr/bin/setpriv"
    /// setpriv's options that make the child receive SIGKILL when its parent thread ends.
    package static let deathSignal = ["--pdeathsig", "KILL"]
    /// The prefix, as one string, for programs that take a "run the daemon under" command (gpsfake -m).
    package static var prefix: String { ([setpriv] + deathSignal).joined(separator: " ") }

    package static let shared = ChildSpawner()

    /// One request: its body, and its outcome once run (both under `condition`); an async caller's
    /// continuation, resumed with the outcome instead.
    private final class Job {
        let body: @Sendable () throws -> Void
        var outcome: Result<Void, any Error>?
        var waiter: CheckedContinuation<Void, any Error>?
        init(_ body: @escaping @Sendable () throws -> Void) { self.body = body }
    }

    private let condition = NSCondition()
    /// Requests not yet taken by the thread (under `condition`).
    private var pending: [Job] = []

    private init() {
        let thread = Thread { [self] in
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            while true {
                condition.lock()
                while pending.isEmpty { condition.wait() }
                let job = pending.removeFirst()
                condition.unlock()
                let outcome = Result { try job.body() }
                condition.lock()
                job.outcome = outcome
                let waiter = job.waiter
                condition.broadcast()
                condition.unlock()
                waiter?.resume(with: outcome)
            }
        }
        thread.name = "test-spawner"
        thread.start()
    }

    /// Runs `body` on the spawner thread; returns once it has run, without blocking the task's thread.
    func perform(_ body: @escaping @Sendable () throws -> Void) async throws {
        let job = Job(body)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            condition.lock()
            job.waiter = continuation
            pending.append(job)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Runs `body` on the spawner thread and returns once it has run (a spawn takes milliseconds).
    func perform(_ body: @escaping @Sendable () throws -> Void) throws {
        let job = Job(body)
        condition.lock()
        pending.append(job)
        condition.broadcast()
        while job.outcome == nil { condition.wait() }
        let outcome = job.outcome!
        condition.unlock()
        try outcome.get()
    }
}
