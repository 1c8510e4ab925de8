import Foundation
@testable import LiveLocation
import Locking
import Testing
import TestSupport

/// A live source's fix sequence: in order, the newest ones when the consumer is slow, and the
/// producer's task cancelled when the consumer goes away.
@Suite struct LiveFixesTests {
    static func fix(_ second: Int) -> Fix { LiveLocationTests.fix(at: Double(second)) }

    @Test func fixesArriveInOrderAndTheSequenceEndsWhenTheProducerReturns() async {
        let fixes = LiveFixes { continuation in
            for second in 1...5 { continuation.yield(Self.fix(second)) }
        }
        var received: [Fix] = []
        for await fix in fixes { received.append(fix) }
        #expect(received == (1...5).map(Self.fix))
    }

    @Test func aSlowConsumerGetsTheNewestFixesHandedOverInOneCall() async throws {
        let produced = Locked(false)
        let fixes = LiveFixes(bufferingNewest: 3) { continuation in
            for second in 1...10 { continuation.yield(Self.fix(second)) }
            produced.withLock { $0 = true }
            try? await Task.sleep(for: .seconds(60))  // still running: the sequence has not ended
        }
        #expect(await eventually(timeout: .seconds(5)) { produced.withLock { $0 } })
        var iterator = fixes.makeAsyncIterator()
        var handed: [Fix] = []
        #expect(await iterator.nextFixes(isolation: nil) { handed.append($0); return true })
        #expect(handed == [8, 9, 10].map(Self.fix))
    }

    /// A consumer held up for long (behind a full disk) keeps the newest fixes, and the memory for
    /// at most twice the limit, however many the source produced meanwhile.
    @Test func aStalledConsumerCostsAtMostTwiceTheLimitInMemory() async throws {
        let produced = Locked(false)
        let fixes = LiveFixes(bufferingNewest: 8) { continuation in
            for second in 1...1_000 { continuation.yield(Self.fix(second)) }
            produced.withLock { $0 = true }
            try? await Task.sleep(for: .seconds(60))
        }
        #expect(await eventually(timeout: .seconds(5)) { produced.withLock { $0 } })
        #expect(fixes.retainedCount <= 16, "\(fixes.retainedCount) fixes in memory")
        var iterator = fixes.makeAsyncIterator()
        var handed: [Fix] = []
        #expect(await iterator.nextFixes(isolation: nil) { handed.append($0); return true })
        #expect(handed == (993...1_000).map(Self.fix))
    }

    @Test func cancellingTheConsumerCancelsTheProducer() async throws {
        let producerCancelled = Locked(false)
        let fixes = LiveFixes { continuation in
            continuation.yield(Self.fix(1))
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            producerCancelled.withLock { $0 = true }
        }
        let received = Locked(0)
        let consumer = Task {
            for await _ in fixes { received.withLock { $0 += 1 } }
        }
        #expect(await eventually(timeout: .seconds(5)) { received.withLock { $0 } == 1 })
        consumer.cancel()
        await consumer.value
        #expect(received.withLock { $0 } == 1)
        #expect(await eventually(timeout: .seconds(5)) { producerCancelled.withLock { $0 } })
    }

    @Test func aSequenceNobodyHoldsAnyMoreCancelsItsProducer() async throws {
        let producerCancelled = Locked(false)
        do {
            let fixes = LiveFixes { continuation in
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
                producerCancelled.withLock { $0 = true }
            }
            _ = fixes.makeAsyncIterator()
        }
        #expect(await eventually(timeout: .seconds(5)) { producerCancelled.withLock { $0 } })
    }
}
