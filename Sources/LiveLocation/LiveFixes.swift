/// The fix sequence of a live source (gpsd, a serial receiver): `run` feeds the continuation on a
/// task of its own until it returns or the consumer goes away (the task is then cancelled).
/// Consumers slower than the source see the newest 256 fixes.
package func liveFixes(_ run: @escaping @Sendable (AsyncStream<Fix>.Continuation) async -> Void) -> AsyncStream<Fix> {
    let (stream, continuation) = AsyncStream.makeStream(of: Fix.self, bufferingPolicy: .bufferingNewest(256))
    let task = Task {
        await run(continuation)
        continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
}
