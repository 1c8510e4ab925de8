import CCurl

/// "Abandon the transfer under way": set from any thread (a cancelled task, `HTTPClient.abort()`),
/// read on the client's queue by both transports — the built-in one between waits of at most
/// `HTTPAbortFlag.checkInterval`, libcurl's progress callback at least once a second. An atomic
/// int that C can read, hence not Synchronization's `Atomic`.
final class HTTPAbortFlag: @unchecked Sendable {
    /// How long the built-in transport waits on a socket before looking at the flag again.
    static let checkInterval = Duration.milliseconds(250)

    let pointer: UnsafeMutablePointer<Int32>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: 0)
    }

    deinit { pointer.deallocate() }

    func set() { ccurl_flag_store(pointer, 1) }
    func clear() { ccurl_flag_store(pointer, 0) }
    var isSet: Bool { ccurl_flag_load(pointer) != 0 }
}
