import CThreadSanitizer
import Synchronization

/// A value behind a lock: the package's one mutex.
///
/// It is Synchronization's `Mutex`, told to ThreadSanitizer: on Linux `Mutex` locks with raw futex
/// system calls, which ThreadSanitizer does not intercept, so every access inside `withLock` looked
/// unordered to it and each type owning a `Mutex` had to be listed as a suppression (a list that
/// fell behind whenever a type was added, and hid real races in those types). Here each lock and
/// unlock is also an acquire and a release on the lock's address, which ThreadSanitizer orders
/// accesses by; in a build without ThreadSanitizer these are a null check each.
///
/// A class, so that the address ThreadSanitizer synchronizes on stays where it is.
/// `LockingTests.noMutexOutsideLocking` keeps `Mutex` out of the rest of the package.
package final class Locked<Value: ~Copyable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with the value, the lock held.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        #if compiler(>=6.3)
        let address = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            livelocd_tsan_acquire(address)
            defer { livelocd_tsan_release(address) }
            return try body(&value)
        }
        #else
        // Swift 6.2 (Debian's swiftlang, the packages for arm64 and Debian 13) rejects passing the
        // `inout sending` value on from inside a closure ("sending 'value' risks causing data
        // races"): its build hands `body` to the mutex as it is, without ThreadSanitizer's
        // annotations. They cost nothing to lose there: those builds are release builds, never run
        // under ThreadSanitizer (make sanitizers builds with 6.3).
        return try mutex.withLock(body)
        #endif
    }
}
