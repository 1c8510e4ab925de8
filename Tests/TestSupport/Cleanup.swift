/// Runs `body`, then `cleanup`, whether `body` returned or threw: a `defer` for a cleanup that
/// awaits (closing a journal, stopping a runner's task), which `defer` cannot do.
public func withCleanup<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T,
                           cleanup: () async -> Void) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
