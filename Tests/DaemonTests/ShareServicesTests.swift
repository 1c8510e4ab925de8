import Delivery
import Journal
import LiveLocation
import Pipeline
import SystemIO
import Testing
import TestSupport

/// `SharePipeline.services`, the one place livelocd and `liveloc share` get their services from:
/// one order of start (and so of shutdown), and the two runs' differences said by `ShareRun`.
@Suite struct ShareServicesTests {
    static func pipeline() async throws -> SharePipeline {
        var plan = SharePipeline.Plan(clock: ManualClock(now: ShareDispatcherTests.start), log: .silent)
        plan.destinations = [ShareDispatcherTests.Recorder()]
        plan.journal = .init(directory: try Paths.temporaryDirectory("share-services").path)
        return try await SharePipeline(plan)
    }

    static let bothRuns: [(String, @Sendable (SharePipeline) -> ShareRun)] = [
        ("daemon", { .daemon(executor: $0.journal!.taskExecutor) }), ("one share", { _ in .oneShare(drainTimeout: .seconds(1)) }),
    ]

    @Test(arguments: [0, 1])
    func theRunnersStartFirstThenTheDispatcherTheOthersAndTheSourceLast(run: Int) async throws {
        let pipeline = try await Self.pipeline()
        let services = await pipeline.services(Self.bothRuns[run].1(pipeline), others: [Service("control server") {}]) {}
        // runServiceGroup stops them in reverse: the source first, the runners last.
        #expect(services.services.map(\.name) == ["destination recorder", "dispatcher", "control server", "source"],
                "\(Self.bothRuns[run].0)")
        #expect(services.resumed == nil)
        await pipeline.journal?.close()
    }

    @Test func aOneShareRunEndsWithItsDispatcherAndDrainsItsDestinationsADaemonDoesNeither() async throws {
        let pipeline = try await Self.pipeline()
        let daemon = await pipeline.services(.daemon(executor: pipeline.journal!.taskExecutor)) {}.services
        let share = await pipeline.services(.oneShare(drainTimeout: .seconds(1))) {}.services
        #expect(share[1].ending == .shutsDownGroup)
        #expect(daemon[1].ending == .isIgnored)
        #expect(share[0].shutdown != nil && share[0].cancelsAfterShutdown, "a share's runner drains, then is cancelled")
        #expect(daemon[0].shutdown == nil, "a daemon's runner is cancelled at once")
        await pipeline.journal?.close()
    }

    /// Stopping livelocd keeps its share (the next start resumes it); stopping `liveloc share` ends it.
    @Test(arguments: [(0, true), (1, false)])
    func stoppingTheDispatcherEndsTheShareOnlyInAOneShareRun(run: Int, keepsShare: Bool) async throws {
        let pipeline = try await Self.pipeline()
        let dispatcher = await pipeline.services(Self.bothRuns[run].1(pipeline)) {}.services[1]
        let loop = Task { try await dispatcher.run() }
        await pipeline.broadcaster.start(.fifteenMinutes)
        await dispatcher.shutdown?()
        try await loop.value
        #expect((await pipeline.broadcaster.activeShare != nil) == keepsShare, "\(Self.bothRuns[run].0)")
        await pipeline.journal?.close()
    }
}
