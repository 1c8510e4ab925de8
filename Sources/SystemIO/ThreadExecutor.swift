#if canImport(Glibc)
import Glibc
#endif
import Locking

/// A task executor backed by one thread of its own: tasks that prefer it (and the default actors
/// they call) run there, one job at a time.
///
/// A share's pipeline (source, broadcaster, stdout writer) runs on one of these, so that handing an
/// event from the broadcaster to the writer is a job queued on the same thread, not a wake-up of
/// another CPU: on a virtual machine, waking an idle vCPU can take milliseconds, which made the
/// fix-to-stdout latency's p99 miss 1 ms on the cooperative pool. The thread sleeps in `read` on a
/// pipe when it has nothing to run; enqueueing writes a byte to it only then.
///
/// Blocking work (HTTP, fsync) does not belong on the share's: it would delay every event behind it.
/// It is also a serial executor, so an actor can run on a thread of its own (the journal does: its
/// SQLite commits and fsyncs block that thread only).
///
/// A descriptor can be watched too (`watchReadable`): while the thread has no job it waits in
/// `poll` for its wake-up pipe and the watched descriptors, and runs a watch's handler, between
/// jobs, when its descriptor is readable. The journal's thread reads gpsd this way: a report from
/// gpsd wakes that one thread, which reads it, takes the fix through the share's rules and commits
/// it, instead of a reading thread waking the journal's.
package final class ThreadExecutor: TaskExecutor, SerialExecutor {
    private struct State {
        var jobs: [UnownedJob] = []
        var sleeping = false
        var stopping = false
        /// Handlers by descriptor, run on the thread when it is readable.
        var watches: [Int32: @Sendable () -> Void] = [:]
    }

    private let state = Locked(State())
    /// The wake-up pipe: the thread reads it while asleep, `enqueue` writes to it.
    private let wakeup: WakeupPipe
    /// The thread's name, as `top -H` and /proc/PID/task/TID/comm show it (at most 15 bytes).
    package let name: String

    /// Starts the thread. It runs until `shutdown()` (or the process ends).
    /// - Throws: `SystemError` when no pipe or thread can be created.
    package init(name: String) throws(SystemError) {
        wakeup = try WakeupPipe()
        self.name = String(name.utf8.prefix(15))!
        // The thread holds the executor until its loop ends (after `shutdown()`).
        do {
            try startDetachedThread(name: self.name) { self.runLoop() }
        } catch {
            wakeup.close()
            throw error
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mustWake = state.withLock { state -> Bool in
            precondition(!state.stopping, "a job was enqueued on ThreadExecutor \(name) after its shutdown")
            state.jobs.append(job)
            defer { state.sleeping = false }
            return state.sleeping
        }
        if mustWake { signalWakeup() }
    }

    /// Runs `handler` on this executor's thread, between jobs, whenever `descriptor` is readable (or
    /// hung up, or in error) until `unwatch(descriptor)`; the handler reads what is there without
    /// blocking (the descriptor should be non-blocking). One watch per descriptor.
    package func watchReadable(_ descriptor: Int32, _ handler: @escaping @Sendable () -> Void) {
        let mustWake = state.withLock { state -> Bool in
            state.watches[descriptor] = handler
            defer { state.sleeping = false }
            return state.sleeping
        }
        // The thread polls the new set from its next wait on.
        if mustWake { signalWakeup() }
    }

    /// Ends the watch of `descriptor`. Called from the handler itself (on this thread), the handler
    /// never runs again; from another thread, it may run once more if its descriptor was ready already.
    package func unwatch(_ descriptor: Int32) {
        state.withLock { _ = $0.watches.removeValue(forKey: descriptor) }
    }

    /// Lets the thread end once the jobs queued so far have run; nothing may be enqueued after.
    /// Watches end with it, their handlers not called again: what reads there (a gpsd session)
    /// must have ended first, as livelocd's shutdown order has it (the source, then the journal).
    package func shutdown() {
        let mustWake = state.withLock { state -> Bool in
            state.stopping = true
            defer { state.sleeping = false }
            return state.sleeping
        }
        if mustWake { signalWakeup() }
    }

    private func runLoop() {
        let executor = asUnownedTaskExecutor()
        let serial = asUnownedSerialExecutor()
        var batch: [UnownedJob] = []
        while true {
            let stop = state.withLock { state -> Bool in
                swap(&state.jobs, &batch)
                state.sleeping = batch.isEmpty && !state.stopping
                return batch.isEmpty && state.stopping
            }
            if stop { break }
            if batch.isEmpty {
                awaitWakeupOrReadable()
                continue
            }
            for job in batch { job.runSynchronously(isolatedTo: serial, taskExecutor: executor) }
            batch.removeAll(keepingCapacity: true)
        }
        wakeup.close()
    }

    // One byte per sleep: `enqueue` writes only when the thread said it sleeps, and clears that.
    private func signalWakeup() {
        wakeup.wake()
    }

    /// Waits for the wake-up byte or a watched descriptor; runs the handlers of those readable.
    private func awaitWakeupOrReadable() {
        let watched = state.withLock { $0.watches.keys.sorted() }
        guard !watched.isEmpty else {
            _ = wakeup.waitForByte()
            return
        }
        guard let events = try? pollReadable([wakeup.reader] + watched.map(FileDescriptor.init(rawValue:)), timeout: nil) else { return }
        if !events[0].isEmpty { _ = wakeup.waitForByte() }
        // Awake: what the handlers enqueue runs next without a byte through the pipe.
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            state.sleeping = false
            return zip(watched, events.dropFirst()).filter { !$0.1.isEmpty }.compactMap { state.watches[$0.0] }
        }
        for handler in handlers { handler() }
    }
}
