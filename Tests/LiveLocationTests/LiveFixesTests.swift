import Foundation
@testable import LiveLocation
import Locking
import Testing

/// A live source's fix sequence: in order, the newest ones when the consumer is slow, and the
/// producer's task cancelled when the consumer goes away.
@Suite struct LiveFixesTests {
    static func fix(_ second: Int) -> Fix { LiveLocationTests.fix(at: Double(second)) }

    /// Waits (bounded: 5 s) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

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
        #expect(try await Self.eventually { produced.withLock { $0 } })
        var iterator = fixes.makeAsyncIterator()
        var handed: [Fix] = []
        #expect(await iterator.nextFixes(isolation: nil) { handed.append($0); return true })
        #expect(handed == [8, 9, 10].map(Self.fix))
    }

    @Test func cancellingTheConsumerCancelsTheProducer() async throws {
        let producerCancelled = Locked(false)
        let fixes = LiveFixes { continuation in
            continuation.yield(Self.fix(1))
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
            producerCancelled.withLock { $0 = true }
        }
        let consumer = Task {
            var count = 0
            for await _ in fixes { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(100))
        consumer.cancel()
        #expect(await consumer.value == 1)
        #expect(try await Self.eventually { producerCancelled.withLock { $0 } })
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
        #expect(try await Self.eventually { producerCancelled.withLock { $0 } })
    }
}
