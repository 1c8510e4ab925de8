#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import Locking
import ShareLink

/// The relay's HTTP side, on GNU libmicrohttpd (one thread per connection; connection limits,
/// per-address limits, idle timeouts and per-connection memory are MHD's options):
///
/// - `POST /api/v1/events`: a device's signed, sealed event (`RelayPost`) or heartbeat; 200 stored
///   or already there, 202 stored as the first of a share begun mid-way (the relay restarted: send
///   the events before it again), 400 malformed, 401 unsigned or stale, 403 another device's
///   share, 404 a heartbeat for a share it does not have, 410 ended, 413 too large, 503 full.
/// - `GET /s/ID`: the viewer page (the key stays in the fragment, in the browser); 410 once the
///   share is gone, one uniform 404 for any id it does not know (429 past the per-address budget).
/// - `GET /s/ID/events`: Server-Sent Events, `id:` = seq, resumed after `Last-Event-ID`, a
///   heartbeat comment every 15 s, `end` at the share's end, then the stream closes.
/// - `GET /viewer.js`, `/viewer.css`, `/leaflet/…` (Debian's libjs-leaflet): the page's assets;
///   `GET /healthz`.
package final class RelayServer: @unchecked Sendable {
    /// The configuration of one relay.
    package struct Options: Sendable {
        package var host: String
        package var port: UInt16
        package var secrets: [[UInt8]]
        package var limits = RelayLimits()
        /// Connections at once (viewers, devices, everything).
        package var connectionLimit: UInt32 = 4096
        /// Connections at once from one address; 0 for none (behind a reverse proxy, where every
        /// connection comes from the proxy: set `behindProxy`).
        package var perAddressLimit: UInt32 = 64
        /// Idle seconds before MHD closes a connection (viewers get a heartbeat well within it).
        package var timeoutSeconds: UInt32 = 45
        /// Seconds a request may take in all, from the connection's start (or the previous answer's
        /// end, kept alive) until its headers and body are in: a client that drips bytes within the
        /// idle timeout (slowloris) is cut off here. A viewer's stream, once answered, is exempt.
        package var requestDeadlineSeconds = 30
        package var heartbeatSeconds = 15
        /// Behind a reverse proxy: no per-address connection limit, the throttle keyed on the last
        /// address of `X-Forwarded-For`.
        package var behindProxy = false
        /// The viewer page's map tiles (default OpenStreetMap's), or none.
        package var tiles = MapTiles.openStreetMap
        /// Where Leaflet is (Debian's libjs-leaflet); nil, or a directory without it: the page
        /// draws a sketch of the trail instead of a map.
        package var leafletDirectory: String? = LeafletAssets.debianDirectory

        package init(host: String, port: UInt16, secrets: [[UInt8]]) {
            self.host = host
            self.port = port
            self.secrets = secrets
        }
    }

    package let store: RelayStore
    private let options: Options
    /// Leaflet's files, read at start; nil without them.
    package let leaflet: LeafletAssets?
    private let page: [UInt8]
    private let contentSecurityPolicy: String
    private var daemon: OpaquePointer?
    private var sweeper: pthread_t?
    /// Set by `stop`, read by the sweeper's thread.
    private let stopping = Locked(false)
    /// Each open connection's socket and, while a request is awaited or arriving, when it must be
    /// in (keyed by MHD's connection): the sweeper shuts down the sockets past it.
    private struct OpenConnection {
        var socket: Int32
        var deadline: ContinuousClock.Instant?
    }
    private let connections = Locked<[UInt: OpenConnection]>([:])

    package init(options: Options) {
        self.options = options
        store = RelayStore(limits: options.limits)
        leaflet = options.leafletDirectory.flatMap(LeafletAssets.init(directory:))
        page = Array(RelayAssets.page(tiles: options.tiles, leaflet: leaflet != nil).utf8)
        contentSecurityPolicy = RelayAssets.contentSecurityPolicy(tiles: options.tiles)
    }

    /// The port it listens on (after `start`, also for port 0).
    package private(set) var port: UInt16 = 0

    /// Binds and starts serving. - Throws: `RelayError.listen` when the address is bad or taken.
    package func start() throws(RelayError) {
        let limits = cmhd_limits(connection_limit: options.connectionLimit,
                                 per_address_limit: options.behindProxy ? 0 : options.perAddressLimit,
                                 timeout_seconds: options.timeoutSeconds, memory_limit: 12 << 10, thread_stack_size: 256 << 10)
        let context = Unmanaged.passUnretained(self).toOpaque()
        var started: OpaquePointer?
        if options.host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = options.port.bigEndian
            guard inet_pton(AF_INET6, options.host, &address.sin6_addr) == 1 else { throw .listen("\(options.host): not an IPv6 address") }
            started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cmhd_start($0, 1, limits, relayAccessHandler, context, relayCompleted, context, relayConnections, context)
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = options.port.bigEndian
            guard inet_pton(AF_INET, options.host, &address.sin_addr) == 1 else { throw .listen("\(options.host): not an IPv4 address") }
            started = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    cmhd_start($0, 0, limits, relayAccessHandler, context, relayCompleted, context, relayConnections, context)
                }
            }
        }
        guard let started else { throw .listen("\(options.host):\(options.port): \(String(cString: strerror(errno)))") }
        daemon = started
        port = cmhd_port(started)
        startSweeper()
    }

    /// Stops serving: wakes every viewer, closes every connection.
    package func stop() {
        stopping.withLock { $0 = true }
        store.close()
        if let daemon { MHD_stop_daemon(daemon) }
        daemon = nil
    }

    private func startSweeper() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { context in
            let server = Unmanaged<RelayServer>.fromOpaque(context!).takeRetainedValue()
            while !server.stopping.withLock({ $0 }) {
                server.store.sweep(now: RelayClock.now)
                server.cutOffLateRequests()
                sleep(1)
            }
            return nil
        }, context)
        pthread_detach(thread)
    }

    // MARK: Request deadlines

    /// A connection opened (`socket`) or closed (nil): MHD tells both, on the connection's thread,
    /// before it closes the socket.
    fileprivate func connection(_ connection: OpaquePointer, opened socket: Int32?) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        let deadline = ContinuousClock.now + .seconds(options.requestDeadlineSeconds)
        connections.withLock { $0[key] = socket.map { OpenConnection(socket: $0, deadline: deadline) } }
    }

    /// A request came in whole (`awaited` false), or an answer ended and the connection waits for
    /// the next request (`awaited` true: its deadline starts now).
    fileprivate func request(on connection: OpaquePointer, awaited: Bool) {
        let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        let deadline = awaited ? ContinuousClock.now + .seconds(options.requestDeadlineSeconds) : nil
        connections.withLock { $0[key]?.deadline = deadline }
    }

    /// Shuts down the sockets of requests past their deadline (MHD then sees the connection end
    /// and closes it): under the lock MHD's close notification takes, so the socket is still theirs.
    func cutOffLateRequests() {
        let now = ContinuousClock.now
        connections.withLock { open in
            for (key, connection) in open {
                guard let deadline = connection.deadline, deadline < now else { continue }
                shutdown(connection.socket, Int32(SHUT_RDWR))
                open[key]?.deadline = nil
            }
        }
    }

    /// Open connections, and how many of them await or are receiving a request (for tests).
    package var openConnections: (open: Int, awaitingRequest: Int) {
        connections.withLock { ($0.count, $0.values.filter { $0.deadline != nil }.count) }
    }

    // MARK: Requests

    fileprivate func handle(_ connection: OpaquePointer, url: String, method: String, request: RequestState,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>) -> MHD_Result {
        if method == "POST" {
            if !request.started {
                request.started = true
                if let length = header(connection, "Content-Length").flatMap(Int.init), length > options.limits.bodyBytes {
                    return respond(connection, 413, "too large\n")
                }
                return cmhd_yes()
            }
            if uploadSize.pointee > 0 {
                if request.body.count + uploadSize.pointee > options.limits.bodyBytes { request.tooLarge = true }
                if !request.tooLarge, let upload {
                    request.body += UnsafeRawBufferPointer(start: upload, count: uploadSize.pointee)
                }
                uploadSize.pointee = 0
                return cmhd_yes()
            }
            self.request(on: connection, awaited: false)
            guard url == "/api/v1/events" else { return respond(connection, 404, "not found\n") }
            if request.tooLarge { return respond(connection, 413, "too large\n") }
            return post(connection, body: request.body)
        }
        self.request(on: connection, awaited: false)
        guard method == "GET" || method == "HEAD" else { return respond(connection, 405, "method not allowed\n") }
        let id: String
        let isPage: Bool
        switch RelayRoute(path: url) {
        case .script: return respond(connection, 200, RelayAssets.script, type: "text/javascript; charset=utf-8", cache: "public, max-age=3600")
        case .style: return respond(connection, 200, RelayAssets.style, type: "text/css; charset=utf-8", cache: "public, max-age=3600")
        case .health: return respond(connection, 200, "ok\n")
        case .leaflet(let name):
            guard let file = leaflet?.files[name] else { return respond(connection, 404, "not found\n") }
            if let gzip = file.gzip, header(connection, "Accept-Encoding")?.contains("gzip") == true {
                return respond(connection, 200, gzip, type: file.type, cache: "public, max-age=86400",
                               extra: [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")])
            }
            return respond(connection, 200, file.bytes, type: file.type, cache: "public, max-age=86400",
                           extra: file.gzip == nil ? [] : [("Vary", "Accept-Encoding")])
        case .notFound: return respond(connection, 404, "not found\n")
        case .page(let share): (id, isPage) = (share, true)
        case .events(let share): (id, isPage) = (share, false)
        }
        let state = store.page(id)
        if state == .unknown {
            guard store.mayAskUnknown(address: clientAddress(connection), now: RelayClock.now) else {
                return respond(connection, 429, "too many requests\n", extra: [("Retry-After", "60")])
            }
            return respond(connection, 404, "not found\n")
        }
        if state == .gone { return respond(connection, 410, RelayAssets.gonePage, type: "text/html; charset=utf-8", page: true) }
        if isPage { return respond(connection, 200, page, type: "text/html; charset=utf-8", page: true) }
        return stream(connection, id: id, after: RelayRoute.lastEventID(header(connection, "Last-Event-ID")))
    }

    private func post(_ connection: OpaquePointer, body: [UInt8]) -> MHD_Result {
        guard let (post, signature) = RelayPost.parse(header: { header(connection, $0) }, body: body) else {
            return respond(connection, 400, "bad request\n")
        }
        let now = RelayClock.now
        guard post.isSigned(within: options.limits.timestampToleranceSeconds, of: now),
              let signer = post.signer(of: signature, among: options.secrets) else { return respond(connection, 401, "unauthorized\n") }
        switch store.accept(post, signer: signer, now: now) {
        case .stored: return respond(connection, 200, "stored\n")
        case .duplicate: return respond(connection, 200, "duplicate\n")
        case .gone: return respond(connection, 410, "gone\n")
        case .forbidden: return respond(connection, 403, "forbidden\n")
        case .full: return respond(connection, 503, "full\n", extra: [("Retry-After", "30")])
        case .unknownShare: return respond(connection, 404, "not found\n")
        case .storedMissingTrail: return respond(connection, 202, "stored; send the events before it again\n")
        }
    }

    private func stream(_ connection: OpaquePointer, id: String, after: UInt64) -> MHD_Result {
        let viewer = ViewerStream(store: store, id: id, after: after, heartbeatSeconds: options.heartbeatSeconds)
        let context = Unmanaged.passRetained(viewer).toOpaque()
        guard let response = MHD_create_response_from_callback(cmhd_size_unknown(), 4096, { context, _, buffer, max in
            Unmanaged<ViewerStream>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, max: max)
        }, context, { context in
            Unmanaged<ViewerStream>.fromOpaque(context!).release()
        }) else { return cmhd_no() }
        defer { MHD_destroy_response(response) }
        addHeaders(response, type: "text/event-stream; charset=utf-8", cache: "no-store", page: false)
        MHD_add_response_header(response, "X-Accel-Buffering", "no")
        return MHD_queue_response(connection, 200, response)
    }

    private func respond(_ connection: OpaquePointer, _ status: UInt32, _ body: String, type: String = "text/plain; charset=utf-8",
                         cache: String = "no-store", page: Bool = false, extra: [(String, String)] = []) -> MHD_Result {
        respond(connection, status, Array(body.utf8), type: type, cache: cache, page: page, extra: extra)
    }

    private func respond(_ connection: OpaquePointer, _ status: UInt32, _ bytes: [UInt8], type: String,
                         cache: String = "no-store", page: Bool = false, extra: [(String, String)] = []) -> MHD_Result {
        guard let response = bytes.withUnsafeBytes({ cmhd_response_copy(bytes.count, $0.baseAddress) }) else { return cmhd_no() }
        defer { MHD_destroy_response(response) }
        addHeaders(response, type: type, cache: cache, page: page)
        for (name, value) in extra { MHD_add_response_header(response, name, value) }
        return MHD_queue_response(connection, status, response)
    }

    private func addHeaders(_ response: OpaquePointer, type: String, cache: String, page: Bool) {
        MHD_add_response_header(response, "Content-Type", type)
        MHD_add_response_header(response, "Cache-Control", cache)
        MHD_add_response_header(response, "X-Content-Type-Options", "nosniff")
        MHD_add_response_header(response, "Referrer-Policy", "strict-origin")
        MHD_add_response_header(response, "X-Robots-Tag", "noindex, nofollow")
        if page {
            MHD_add_response_header(response, "Content-Security-Policy", contentSecurityPolicy)
            MHD_add_response_header(response, "X-Frame-Options", "DENY")
        }
    }

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        cmhd_header(connection, name).map { String(cString: $0) }
    }

    private func clientAddress(_ connection: OpaquePointer) -> String {
        if options.behindProxy, let forwarded = header(connection, "X-Forwarded-For"),
           let last = forwarded.split(separator: ",").last {
            return String(last.drop(while: { $0 == " " }))
        }
        var buffer = [CChar](repeating: 0, count: 64)
        cmhd_client_address(connection, &buffer, buffer.count)
        return String(cString: buffer)
    }
}

/// One request's state between MHD's calls (its body, as it arrives).
fileprivate final class RequestState {
    var started = false
    var body: [UInt8] = []
    var tooLarge = false
}

private let relayAccessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, upload, uploadSize, requestContext in
    let server = Unmanaged<RelayServer>.fromOpaque(context!).takeUnretainedValue()
    let request: RequestState
    if let existing = requestContext!.pointee {
        request = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    } else {
        request = RequestState()
        requestContext!.pointee = Unmanaged.passRetained(request).toOpaque()
    }
    return server.handle(connection!, url: String(cString: url!), method: String(cString: method!), request: request,
                         upload: upload, uploadSize: uploadSize!)
}

private let relayCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, _ in
    if let context, let connection {
        Unmanaged<RelayServer>.fromOpaque(context).takeUnretainedValue().request(on: connection, awaited: true)
    }
    guard let requestContext, let state = requestContext.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestContext.pointee = nil
}

private let relayConnections: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let context, let connection else { return }
    let server = Unmanaged<RelayServer>.fromOpaque(context).takeUnretainedValue()
    server.connection(connection, opened: cmhd_connection_started(code) != 0 ? cmhd_connection_fd(connection) : nil)
}
