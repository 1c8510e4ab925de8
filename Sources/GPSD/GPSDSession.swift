import CGPS
import LiveLocation
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// One connection to gpsd, read on a dedicated thread that blocks in `gps_read` (no polling), or,
/// given a `readingThread`, on that executor's thread when the socket is readable.
///
/// The session's thread owns the `gps_data_t` (on the heap) from `gps_open` to `gps_close`: it
/// connects and sends the watch request (a connection to a distant gpsd may take long; it never
/// holds up the reading thread), then either reads itself or, with a `readingThread`, hands the
/// socket (non-blocking now) to it and sleeps until that thread says the connection ended: then a
/// report from gpsd wakes only the reading thread (the journal's, in livelocd), not two threads.
/// `cancel()` shuts the socket down, which makes a blocked `gps_read` return at once, or the socket
/// readable with its end; the connection is then closed and `run()` returns (`LiveSession`: the
/// thread and its cancellation).
final class GPSDSession: LiveSession {
    /// What the reading thread saw, in order.
    enum Event: Sendable {
        /// Connected and the watch request was sent.
        case connected
        /// A TPV with a position and a time not seen before on this connection.
        case fix(Fix)
        /// A TPV without a position (mode 0 or 1).
        case noFix
        /// gpsd lists no receiver, or not the one asked for (its path).
        case noReceiver(device: String?)
        /// A receiver stopped (unplugged, or gpsd closed it).
        case receiverRemoved(path: String)
        /// gpsd reported an error (e.g. an unknown device in the watch request).
        case gpsdError(String)
    }

    /// Why the session ended.
    enum End: LiveSessionEnd {
        case cannotConnect(String)
        case lost(String)
        case cancelled
    }

    /// How the session ended; `receivedData`: whether gpsd sent anything at all (then the next reconnect starts its backoff afresh).
    typealias Outcome = LiveSessionOutcome<End>

    let endpoint: GPSDEndpoint
    let device: String?
    private let onEvent: @Sendable (Event) -> Void
    /// Called on the reading thread right after `gps_read` returned a fix, before it is delivered
    /// (for latency measurement).
    private let onRead: (@Sendable (Fix) -> Void)?
    let cancellation = SessionCancellation()
    /// Where the reports are read once connected; nil: on the session's own thread.
    private let readingThread: ThreadExecutor?

    init(endpoint: GPSDEndpoint, device: String?, readingThread: ThreadExecutor? = nil, onRead: (@Sendable (Fix) -> Void)? = nil,
         onEvent: @escaping @Sendable (Event) -> Void) {
        self.endpoint = endpoint
        self.device = device
        self.readingThread = readingThread
        self.onRead = onRead
        self.onEvent = onEvent
    }

    var threadName: String { "gpsd \(endpoint.port)" }

    func end(threadNotStarted error: SystemError) -> End { .cannotConnect("\(error)") }

    fileprivate var isCancelled: Bool { cancellation.isCancelled }

    // MARK: - The reading thread

    /// Connects, watches and reads until the connection ends or the session is cancelled.
    func readUntilEnd() -> Outcome {
        if isCancelled { return Outcome(end: .cancelled, receivedData: false) }
        let size = MemoryLayout<gps_data_t>.size
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<gps_data_t>.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let data = raw.bindMemory(to: gps_data_t.self, capacity: 1)
        defer { raw.deallocate() }

        errno = 0
        guard gps_open(endpoint.host, String(endpoint.port), data) == 0 else {
            return Outcome(end: .cannotConnect(openFailureReason(errno)), receivedData: false)
        }
        let descriptor = data.pointee.gps_fd
        // Cancelling shuts the socket down: a blocked `gps_read` returns at once.
        let registered = cancellation.register { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        defer {
            cancellation.unregister()
            gps_close(data)
        }
        guard registered else { return Outcome(end: .cancelled, receivedData: false) }
        configureSocket(descriptor)

        var flags = UInt32(WATCH_ENABLE | WATCH_JSON)
        let watched: Int32
        if let device {
            flags |= UInt32(WATCH_DEVICE)
            watched = device.withCString { gps_stream(data, flags, UnsafeMutableRawPointer(mutating: $0)) }
        } else {
            watched = gps_stream(data, flags, nil)
        }
        guard watched == 0 else {
            let end: End = isCancelled ? .cancelled : .lost("sending the watch request: \(String(cString: strerror(errno)))")
            return Outcome(end: end, receivedData: false)
        }
        onEvent(.connected)

        let reader = Reader(session: self, data: data, descriptor: descriptor)
        guard let readingThread else {
            while true {
                if case .ended(let end) = reader.readOnce() { return Outcome(end: end, receivedData: reader.reports.any) }
            }
        }
        // Non-blocking: a handler reads what is there and returns; `gps_read` gives 0 on EAGAIN.
        try? FileDescriptor(rawValue: descriptor).setNonBlocking()
        let ended = Handoff<End>()
        readingThread.watchReadable(descriptor) {
            while true {
                switch reader.readOnce() {
                case .report: continue
                case .nothingMore: return
                case .ended(let end):
                    readingThread.unwatch(descriptor)
                    ended.deliver(end)
                    return
                }
            }
        }
        let end = ended.wait()
        return Outcome(end: end, receivedData: reader.reports.any)
    }

    /// What one `gps_read` came to.
    private enum ReadResult {
        /// A report was handled, or a line it could not unpack skipped: read on.
        case report
        /// No whole line is there yet (non-blocking: the socket has nothing more for now).
        case nothingMore
        case ended(End)
    }

    /// The reading of one connection: its `gps_data_t`, what gpsd sent so far, failed reads in a row.
    /// Used by one thread at a time: the session's, or the reading thread between `watchReadable`
    /// and the handler's `unwatch` (the session's thread sleeps meanwhile).
    private final class Reader: @unchecked Sendable {
        let session: GPSDSession
        let data: UnsafeMutablePointer<gps_data_t>
        let descriptor: Int32
        var reports: ReportState
        var failedReads = 0

        init(session: GPSDSession, data: UnsafeMutablePointer<gps_data_t>, descriptor: Int32) {
            self.session = session
            self.data = data
            self.descriptor = descriptor
            reports = ReportState(device: session.device)
        }

        func readOnce() -> ReadResult {
            data.pointee.set = 0
            errno = 0
            let status = gps_read(data, nil, 0)
            if status == -1 {
                let error = errno
                if session.isCancelled { return .ended(.cancelled) }
                // Older libgps versions give -1 where newer ones give 0 for a socket with nothing yet.
                if error == EAGAIN || error == EWOULDBLOCK { return .nothingMore }
                // gps_read also gives -1 for a line it cannot unpack; the connection is gone only
                // when the socket says so.
                failedReads += 1
                if failedReads < 64, let alive = session.socketIsAlive(descriptor), alive { return .report }
                let reason = error == 0 || error == ECONNRESET ? "gpsd closed the connection" : String(cString: strerror(error))
                return .ended(.lost(reason))
            }
            failedReads = 0
            if status > 0 {
                session.handleReport(data, &reports)
                return .report
            }
            return .nothingMore
        }
    }

    /// The connection's memory of what gpsd sent: the latest SKY values, the last fix's time.
    fileprivate struct ReportState {
        let device: String?
        var any = false
        var hdop: Double?
        var satellitesUsed: Int?
        var lastFixTime: Timestamp?
    }

    fileprivate func handleReport(_ data: UnsafeMutablePointer<gps_data_t>, _ state: inout ReportState) {
        let set = data.pointee.set
        state.any = true
        if set & satelliteSet != 0 {
            state.hdop = known(data.pointee.dop.hdop)
            let used = Int(data.pointee.satellites_used)
            state.satellitesUsed = used > 0 ? used : nil
        }
        if set & modeSet != 0 {
            let mode = data.pointee.fix.mode
            if mode == 2 || mode == 3 {
                guard let fix = Fix(tpv: UnsafePointer(data), hdop: state.hdop, satellitesUsed: state.satellitesUsed),
                      fix.time != state.lastFixTime
                else { return }
                state.lastFixTime = fix.time
                onRead?(fix)
                onEvent(.fix(fix))
            } else {
                onEvent(.noFix)
            }
            return
        }
        if set & deviceListSet != 0 {
            let count = Int(data.pointee.devices.ndevices)
            let paths = withUnsafeBytes(of: &data.pointee.devices.list) { raw in
                let list = raw.bindMemory(to: devconfig_t.self)
                return (0..<min(count, list.count)).map { string(fromCharacters: list[$0].path) }
            }
            if paths.isEmpty || (state.device.map { !paths.contains($0) } ?? false) {
                onEvent(.noReceiver(device: state.device))
            }
        } else if set & deviceSet != 0 {
            let activated = data.pointee.dev.activated
            if activated.tv_sec == 0 && activated.tv_nsec == 0 {
                onEvent(.receiverRemoved(path: string(fromCharacters: data.pointee.dev.path)))
            }
        } else if set & errorSet != 0 {
            onEvent(.gpsdError(string(fromCharacters: data.pointee.error)))
        }
    }

    /// Blocking (the watch request is written whole; the session's own thread waits in `recv`; a
    /// reading thread gets the socket non-blocking once the request is out), and TCP keepalive so
    /// that a gpsd host that vanished without closing the connection is noticed within about half a minute.
    private func configureSocket(_ descriptor: Int32) {
        try? FileDescriptor(rawValue: descriptor).setNonBlocking(false)
        func set(_ level: Int32, _ option: Int32, _ value: Int32) {
            var value = value
            _ = setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        set(SOL_SOCKET, SO_KEEPALIVE, 1)
        set(Int32(IPPROTO_TCP), TCP_KEEPIDLE, 10)
        set(Int32(IPPROTO_TCP), TCP_KEEPINTVL, 5)
        set(Int32(IPPROTO_TCP), TCP_KEEPCNT, 3)
        set(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
    }

    /// Whether the socket is still connected (nil when that cannot be told).
    fileprivate func socketIsAlive(_ descriptor: Int32) -> Bool? {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count > 0 { return true }
        if count == 0 { return false }
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? true : false
    }

    /// `gps_open` reports a libgps code (negative) in errno, or a system errno.
    private func openFailureReason(_ code: Int32) -> String {
        if code < 0 { return String(cString: gps_errstr(code)) }
        if code > 0 { return String(cString: strerror(code)) }
        return "cannot connect"
    }
}
