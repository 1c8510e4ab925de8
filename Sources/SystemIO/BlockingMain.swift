/// Runs `body` on the default executor (livelocd's and liveloc's: PoolExecutor) while the calling thread (a program's main thread)
/// waits for it, and returns its result: a program's `exit(runBlockingMain { await … })`.
///
/// An async top level (`exit(await …)`) would instead give the main thread to `dispatch_main()`,
/// which on Linux ends it with `pthread_exit`: glibc then unwinds the main thread's stack through
/// libgcc_s, whose search reads the executable's unwind tables (.eh_frame_hdr and .eh_frame), which
/// then stay resident (docs/benchmarks.md, the daemon's footprint). For a program that runs nothing on the main actor, which this
/// requires: `body` runs detached from it, and the main thread only waits.
package func runBlockingMain(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
    let status = Handoff<Int32>()
    Task.detached { status.deliver(await body()) }
    return status.wait()
}
