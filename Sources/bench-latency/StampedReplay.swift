import LiveLocation
import Replay
import Locking

/// The instants at which something happened, in order, recorded from any task.
final class Stamps: Sendable {
    private let instants = Locked<[ContinuousClock.Instant]>([])

    func record() {
        let now = ContinuousClock.now
        instants.withLock { $0.append(now) }
    }

    var all: [ContinuousClock.Instant] { instants.withLock { $0 } }
}

/// A replay whose fixes are stamped the moment its iterator returns them: where a fix "enters".
struct StampedReplay: LocationSource {
    let replay: NMEAReplaySource
    let stamps: Stamps

    func fixes() -> Fixes { Fixes(replay: replay, stamps: stamps) }

    struct Fixes: AsyncSequence, Sendable {
        let replay: NMEAReplaySource
        let stamps: Stamps

        func makeAsyncIterator() -> Iterator { Iterator(base: replay.fixes().makeAsyncIterator(), stamps: stamps) }

        struct Iterator: AsyncIteratorProtocol {
            var base: ReplayFixes.Iterator
            let stamps: Stamps

            mutating func next() async throws -> Fix? {
                guard let fix = try await base.next() else { return nil }
                stamps.record()
                return fix
            }
        }
    }
}
