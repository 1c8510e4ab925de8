import Foundation
@testable import LiveLocation
import Locking
import Testing
import TestSupport

@Suite struct StatePublisherTests {
    @Test func aSubscriberGetsTheCurrentStateThenEveryChange() async {
        let publisher = StatePublisher(0)
        var states = publisher.subscribe().makeAsyncIterator()
        #expect(await states.next() == 0)
        #expect(publisher.set(1))
        #expect(!publisher.set(1), "the same state again is no change")
        #expect(publisher.set(2))
        #expect(await states.next() == 1)
        #expect(await states.next() == 2)
        #expect(publisher.current == 2)
    }

    /// A subscriber's task cancelled while another thread publishes a state: the publisher's lock and
    /// the subscriber task's own (Swift holds it while the stream's termination handler runs, and
    /// `yield` needs it to resume the task) were once taken in opposite orders, and both threads
    /// waited for ever (livelocd hung at SIGTERM, its source task cancelled while gpsd's state changed).
    @Test func cancellingASubscriberWhileAStateIsPublishedNeverDeadlocks() async throws {
        final class Rounds: Sendable { let finished = Locked(0) }
        let rounds = Rounds(), count = 300
        Thread.detachNewThread {
            var random = SeededGenerator(seed: 0x5354_4154)  // the same pauses every run
            for _ in 0..<count {
                let publisher = StatePublisher(0)
                let states = publisher.subscribe()
                let subscriber = Task.detached { for await _ in states {} }
                let published = DispatchSemaphore(value: 0)
                Thread.detachNewThread {
                    for state in 1...200 { publisher.set(state) }
                    published.signal()
                }
                usleep(UInt32.random(in: 0...300, using: &random))
                subscriber.cancel()
                published.wait()
                rounds.finished.withLock { $0 += 1 }
            }
        }
        // Bounded: 30 s at most (the rounds take well under a second when nothing is stuck).
        for _ in 0..<600 where rounds.finished.withLock({ $0 }) < count {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(rounds.finished.withLock { $0 } == count, "a round is stuck: publisher and subscriber deadlocked")
    }
}
