import Foundation
import Locking
import TestSupport
import Testing

/// `Locked`, the package's one mutex: ThreadSanitizer is told of its lock and unlock (which it
/// cannot see in Synchronization's `Mutex`), so `make sanitizers` needs no suppression per type.
@Suite struct LockedTests {
    @Test func incrementsFromManyThreadsAreNeitherLostNorDoubled() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<10_000 { counter.withLock { $0 += 1 } } }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func anErrorThrownInsideLeavesTheValueAsItWasLeftAndTheLockFree() {
        struct Refused: Error {}
        let value = Locked([1])
        #expect(throws: Refused.self) {
            try value.withLock { (numbers: inout [Int]) throws(Refused) in
                numbers.append(2)
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == [1, 2])
    }

    /// Synchronization's `Mutex` anywhere else would be a lock ThreadSanitizer cannot see again.
    @Test func noOtherModuleUsesSynchronizationsMutex() throws {
        var offenders: [String] = []
        for directory in ["Sources", "Tests"] {
            let root = Paths.packageRoot.appendingPathComponent(directory)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift", !file.path.contains("/Sources/Locking/"), file.path != #filePath else { continue }
                let text = try String(contentsOf: file, encoding: .utf8)
                if text.contains("Mutex(") || text.contains("Mutex<") { offenders.append(file.lastPathComponent) }
            }
        }
        #expect(offenders == [], "use Locking's Locked instead of Mutex in \(offenders)")
    }
}
