#if canImport(Glibc)
import Glibc
#endif

/// What `poll` saw on one descriptor.
package struct PollEvents: OptionSet, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }

    package static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// Writable, or (for a socket being connected) the connection attempt has ended either way.
    package static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// The other end hung up (a terminal whose device went away, a pipe whose writer closed).
    package static let hangUp = PollEvents(rawValue: Int16(POLLHUP))
    package static let error = PollEvents(rawValue: Int16(POLLERR))
    /// The descriptor is not open.
    package static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// Waits, blocking the calling thread, until one of `descriptors` is readable (or hung up, or in
/// error), or `timeout` passes (nil: no limit). Returns each descriptor's events, all empty after
/// a timeout. For threads of their own only, never the cooperative pool.
/// - Throws: `SystemError` (`poll`).
package func pollReadable(_ descriptors: [FileDescriptor], timeout: Duration?) throws(SystemError) -> [PollEvents] {
    try pollDescriptors(descriptors, for: .readable, timeout: timeout)
}

/// Waits, blocking the calling thread, until one of `descriptors` is writable (a connecting
/// socket: its attempt ended, in success or failure), or `timeout` passes. As `pollReadable`.
package func pollWritable(_ descriptors: [FileDescriptor], timeout: Duration?) throws(SystemError) -> [PollEvents] {
    try pollDescriptors(descriptors, for: .writable, timeout: timeout)
}

private func pollDescriptors(_ descriptors: [FileDescriptor], for events: PollEvents, timeout: Duration?) throws(SystemError) -> [PollEvents] {
    var entries = descriptors.map { pollfd(fd: $0.rawValue, events: events.rawValue, revents: 0) }
    // Rounded up, so that a wait never ends just before its timeout.
    let milliseconds = timeout.map { Int32(clamping: max(0, ($0.wholeMicroseconds + 999) / 1000)) } ?? -1
    let result = retryingOnInterrupt { poll(&entries, nfds_t(entries.count), milliseconds) }
    guard result >= 0 else { throw SystemError("poll") }
    return entries.map { PollEvents(rawValue: $0.revents) }
}
