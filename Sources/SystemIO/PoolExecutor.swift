#if compiler(>=6.3)
#if canImport(Glibc)
import Glibc
#endif
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Locking

/// The process's default executor in place of Swift's cooperative pool, for a daemon that must
/// not wake while it has nothing to do: threads of its own (livelocd: one) that sleep in `sem_wait`
/// until a job comes, and delayed jobs (`Task.sleep`) on `DeadlineTimer`'s one timerfd.
///
/// Swift's default executor on Linux is libdispatch's global queues. Once a job has run there,
/// libdispatch's workqueue monitor (a timer on its manager thread) wakes the process every second
/// for the rest of its life, whatever it runs: the only periodic wake-up of an idle livelocd, and
/// one per fix in a share at 1 Hz (`bench/daemon-footprint.sh` shows it as the thread
/// "…-qos.overcommit"). `Task.sleep` on libdispatch also wakes every second until its deadline.
///
/// `installAsDefault()` makes a program's tasks (`Task {}`, task groups, actors without an
/// executor of their own) run here: livelocd calls it before it makes any task. The hook is the
/// toolchain's `ExecutorFactory` (Swift 6.3, still behind `@_spi(ExperimentalCustomExecutors)`):
/// with a toolchain that changes it, this file is where livelocd stops compiling, not where it
/// silently goes back to libdispatch. Jobs run in the order they came (no priorities: a daemon's
/// few tasks do not need them).
package final class PoolExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0

        mutating func append(_ job: UnownedJob) { jobs.append(job) }

        mutating func next() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            defer {
                head += 1
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: jobs.count <= 256)
                    head = 0
                }
            }
            return jobs[head]
        }
    }

    private let queue = Locked(Queue())
    /// One count per job queued: a thread takes one before it takes a job (`sem_wait`).
    private let available: UnsafeMutablePointer<sem_t>
    /// The threads' names ("livelocd-pool"), as /proc/PID/task/TID/comm shows them.
    package let name: String

    /// Starts `threads` threads. Throws when one cannot be started.
    init(threads: Int, name: String) throws(SystemError) {
        self.name = name
        available = .allocate(capacity: 1)
        sem_init(available, 0, 0)
        for _ in 0..<max(1, threads) {
            try startDetachedThread(name: name) { [self] in work() }
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        enqueueUnowned(UnownedJob(job))
    }

    private func enqueueUnowned(_ job: UnownedJob) {
        queue.withLock { $0.append(job) }
        sem_post(available)
    }

    package func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        let job = UnownedJob(job)
        // The clocks Swift's own `Task.sleep` uses (continuous, suspending) measure in `Duration`.
        let wait = (delay as? Duration) ?? .zero
        DeadlineTimer.schedule(after: wait) { [self] in enqueueUnowned(job) }
    }

    package func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            while sem_wait(available) != 0 {}  // EINTR: wait again
            guard let job = queue.withLock({ $0.next() }) else { continue }
            job.runSynchronously(on: executor)
        }
    }

    /// Makes a pool of `threads` threads the process's default executor. Call it before the program
    /// makes any task; returns false, changing nothing, when no timer or thread could be started (the
    /// default stays libdispatch's).
    ///
    /// One thread is the daemon's choice: its tasks only decide and hand over (blocking work has
    /// threads of its own: the journal's, the HTTP client's, libmosquitto's loop, the sources'), and
    /// with a second thread a job that queues another wakes that thread instead of running it next
    /// (the pool's wake-ups per fix, one thread against two: docs/benchmarks.md, "Wake-ups in a share").
    @discardableResult
    package static func installAsDefault(name: String, threads: Int) -> Bool {
        // Without the timer's thread, DeadlineTimer.schedule would fall back to `Task.sleep`: here.
        guard DeadlineTimer.shared != nil, let pool = try? PoolExecutor(threads: threads, name: name) else { return false }
        Factory.pool.withLock { $0 = pool }
        _createExecutors(factory: Factory.self)
        return true
    }

    private enum Factory: ExecutorFactory {
        static let pool = Locked<PoolExecutor?>(nil)
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { pool.withLock { $0! } }
    }
}
#else
/// Swift 6.2 (Debian's swiftlang, which builds the packages for arm64 and Debian 13) has no
/// `ExecutorFactory`: there the default executor stays libdispatch's global queues, and an idle
/// livelocd wakes once a second (libdispatch's workqueue monitor; docs/benchmarks.md, "Swift 6.2").
package enum PoolExecutor {
    @discardableResult
    package static func installAsDefault(name: String, threads: Int) -> Bool { false }
}
#endif
