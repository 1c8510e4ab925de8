#if canImport(Glibc)
import Glibc
#endif
import Locking

/// A value one thread hands to another that blocks until it comes (`sem_wait`: no wake-up until
/// then): a program's main thread waiting for its async body (`runBlockingMain`), a gpsd session's
/// thread waiting for the reading thread to say how the connection ended.
package final class Handoff<Value: Sendable>: @unchecked Sendable {
    private let value = Locked<Value?>(nil)
    private let delivered: UnsafeMutablePointer<sem_t>

    package init() {
        delivered = .allocate(capacity: 1)
        sem_init(delivered, 0, 0)
    }

    deinit {
        sem_destroy(delivered)
        delivered.deallocate()
    }

    /// Hands `value` over and wakes the waiting thread (once; later calls are ignored).
    package func deliver(_ value: Value) {
        let first = self.value.withLock { held -> Bool in
            guard held == nil else { return false }
            held = value
            return true
        }
        if first { sem_post(delivered) }
    }

    /// Blocks until `deliver(_:)`; returns what it was given.
    package func wait() -> Value {
        while sem_wait(delivered) != 0 {}  // EINTR: wait again
        return value.withLock { $0! }
    }
}
