#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on a new detached thread named `name` (at most 15 bytes are kept: what `top -H` and
/// /proc/PID/task/TID/comm show). For work that blocks in a C library, like libgps's `gps_read`,
/// which must not hold a thread of Swift's cooperative pool.
/// - Throws: `SystemError` when the thread cannot be created.
public func startDetachedThread(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
    final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
    }
    let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
        nameCurrentThread(start.name)
        start.body()
        return nil
    }, context)
    guard result == 0 else {
        Unmanaged<Start>.fromOpaque(context).release()
        throw SystemError("pthread_create", errno: Errno(rawValue: result))
    }
    pthread_detach(thread)
}

/// pthread_setname_np needs _GNU_SOURCE, which Glibc's module map does not define.
private func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = Array(name.utf8.prefix(15)).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    Glibc.close(descriptor)
}
