#if canImport(Glibc)
import Glibc
#endif
import LiveLocation
import SystemIO
import Synchronization

/// libcurl could not be loaded, initialised or configured (https:// only).
package struct HTTPClientError: Error, CustomStringConvertible, Sendable, Equatable {
    package var operation: String
    package var message: String

    package init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    package var description: String { "HTTP client: \(operation): \(message)" }
}

/// Which transport carries http:// requests: the built-in client (always, outside tests), or
/// libcurl (https:// always goes through libcurl). Both meet one contract, tested against both.
package enum HTTPTransportChoice: Sendable, CaseIterable {
    case builtIn
    case libcurl
}

/// The outcome of one `post` (the webhook's view of `perform`: the body is not needed there).
package enum HTTPOutcome: Sendable, Equatable {
    /// The server answered (any status); `retryAfter` from its `Retry-After` header, if any.
    case response(status: Int, retryAfter: Duration?)
    /// No complete answer: connection refused, timeout, TLS failure, reset, malformed response, …
    case transportError(String)
    /// The attempt was abandoned because the waiting task was cancelled.
    case cancelled
}

/// An HTTP client for one destination: requests run one at a time, in the order they are made,
/// on a thread of its own (`executor`), so that blocking I/O never holds an actor or the
/// cooperative thread pool. http:// URLs go through the built-in HTTP/1.1 client
/// (`PlainHTTPTransport`: plain sockets, keep-alive); https:// URLs through libcurl
/// (`CurlTransport`), loaded on first use, so that an http:// destination never maps libcurl or a
/// TLS library.
///
/// A task that prefers `executor` (a destination's runner) hands its requests to this thread and
/// is resumed by the answer on it, without waking another thread for either.
///
/// `@unchecked Sendable`: the transports are touched only on the client's thread, one request at
/// a time (or in `init`, before any request); the abort flag is atomic.
package final class HTTPClient: @unchecked Sendable {
    private let thread: ThreadExecutor
    private let abortFlag = HTTPAbortFlag()
    /// The URL `post(body:headers:)` sends to.
    private let url: String
    private let caFile: String?
    private let timeout: Duration
    private let maxResponseBytes: Int
    private let userAgent: String
    /// The built-in transport, for http://.
    private let plain: PlainHTTPTransport
    /// libcurl, for https://, made on first use (on the client's thread only).
    private var curl: CurlTransport?
    /// Which transport carries http:// (the built-in one but in the transports' contract tests).
    private var httpTransport = HTTPTransportChoice.builtIn
    /// The last URL read, so that a destination's requests to one URL read it once.
    private var lastURL: HTTPURL?

    /// A client for `perform`: each request names its own method and URL.
    ///
    /// - Parameters:
    ///   - caFile: PEM file of CA certificates to trust instead of the system store, for HTTPS.
    ///   - timeout: the longest one request may take, connecting included.
    ///   - maxResponseBytes: how much of a response body is kept (the rest is read and dropped);
    ///     0 keeps none.
    ///   - label: the thread's name (`http-LABEL`) and the User-Agent's product, e.g. "telegram".
    ///   - preparing: a URL the requests will go to: for an https:// one, libcurl is loaded now,
    ///     so that a missing libcurl is an error at start-up rather than at the first request.
    /// - Throws: `HTTPClientError` when libcurl cannot be loaded or set up for `preparing`.
    ///   - resolve: how host names are resolved (tests give their own; default the system's).
    ///   - proxyEnvironment: `http_proxy` and `no_proxy` (tests give their own; default the process's).
    package convenience init(caFile: String? = nil, timeout: Duration, maxResponseBytes: Int = 64 << 10, label: String,
                             preparing: String? = nil,
                             resolve: (@Sendable (String, Int) throws(AddressLookupError) -> [SocketAddress])? = nil,
                             proxyEnvironment: [String: String]? = nil, httpTransport: HTTPTransportChoice = .builtIn) throws {
        try self.init(url: "", caFile: caFile, timeout: timeout, maxResponseBytes: maxResponseBytes, label: label,
                      lookup: resolve.map(HostLookup.init(resolve:)) ?? .system, proxyEnvironment: proxyEnvironment)
        self.httpTransport = httpTransport
        if let preparing { try prepare(for: preparing) }
    }

    /// A client for `post(body:headers:)` to one `url` (the webhook's); libcurl is loaded now when
    /// it is an https:// URL.
    /// - Throws: `HTTPClientError` when libcurl cannot be loaded or set up.
    package convenience init(url: String, caFile: String?, timeout: Duration) throws {
        try self.init(url: url, caFile: caFile, timeout: timeout, maxResponseBytes: 0, label: "webhook")
        try prepare(for: url)
    }

    private init(url: String, caFile: String?, timeout: Duration, maxResponseBytes: Int, label: String,
                 lookup: HostLookup = .system, proxyEnvironment: [String: String]? = nil) throws {
        self.url = url
        self.caFile = caFile
        self.timeout = timeout
        self.maxResponseBytes = max(maxResponseBytes, 0)
        userAgent = "livelocd-\(label)/1"
        plain = PlainHTTPTransport(timeout: timeout, maxResponseBytes: self.maxResponseBytes, userAgent: userAgent, abort: abortFlag,
                                   lookup: lookup, proxy: HTTPProxy(environment: proxyEnvironment ?? Self.proxyEnvironment()))
        thread = try ThreadExecutor(name: "http-\(label)")
    }

    deinit { thread.shutdown() }

    /// `http_proxy`, `no_proxy` and `NO_PROXY`, as libcurl reads them for http:// URLs.
    private static func proxyEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["http_proxy", "no_proxy", "NO_PROXY"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// The thread the requests run on: a task that prefers it (`Task(executorPreference:)`) sends
    /// and gets its answers without a thread hop.
    package var executor: any TaskExecutor { thread }

    /// Makes the transport `url` needs now (libcurl for https://); from `init`, before any request.
    private func prepare(for url: String) throws {
        guard let parsed = try? HTTPURL(url), parsed.isHTTPS else { return }
        _ = try transport(for: parsed)
    }

    /// POSTs `body` as JSON with `headers` ("Name: value") to the client's URL; returns when the
    /// server answered, the attempt failed or timed out, or the calling task was cancelled (the
    /// transfer is aborted within about a second, then this returns `.cancelled`).
    package func post(body: [UInt8], headers: [String]) async -> HTTPOutcome {
        Self.outcome(of: await perform(HTTPRequest(method: .post, url: url, headers: headers, body: .json(body))))
    }

    /// POSTs `body` with `headers` to the client's URL on its thread and calls `completion` there: no
    /// thread hop between the answer and whoever waits for it (the webhook's receipt).
    package func post(body: [UInt8], headers: [String], completion: @escaping @Sendable (HTTPOutcome) -> Void) {
        perform(HTTPRequest(method: .post, url: url, headers: headers, body: .json(body))) { result in
            completion(Self.outcome(of: result))
        }
    }

    private static func outcome(of result: Result<HTTPResponse, HTTPFailure>) -> HTTPOutcome {
        switch result {
        case .success(let response): .response(status: response.status, retryAfter: response.retryAfter)
        case .failure(.transport(let message)), .failure(.noResponse(let message)): .transportError(message)
        case .failure(.cancelled): .cancelled
        }
    }

    /// Sends `request` and returns the answer, or why there is none. Cancelling the calling task
    /// aborts the transfer within about a second (`.cancelled`).
    package func perform(_ request: HTTPRequest) async -> Result<HTTPResponse, HTTPFailure> {
        abortFlag.clear()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPFailure>, Never>) in
                enqueue(request, clearingAbort: false) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            abortFlag.set()
        }
    }

    /// Sends `request` on the client's thread and calls `completion` there with the answer: for a
    /// destination's `send`, which must return at once. Requests run in the order of the calls.
    package func perform(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPFailure>) -> Void) {
        enqueue(request, clearingAbort: true, completion: completion)
    }

    /// One job on the client's thread (FIFO: requests go out in the order of the calls).
    private func enqueue(_ request: HTTPRequest, clearingAbort: Bool,
                         completion: @escaping @Sendable (Result<HTTPResponse, HTTPFailure>) -> Void) {
        Task(executorPreference: thread) {
            if clearingAbort { self.abortFlag.clear() }
            completion(self.transfer(request))
        }
    }

    /// Aborts the transfer under way, if any (it ends with `.cancelled` within about a second).
    package func abort() {
        abortFlag.set()
    }

    /// TCP connections the built-in transport has opened (for tests of keep-alive).
    package var connectionsOpened: Int { plain.connectionsOpened.load(ordering: .relaxed) }

    private func transfer(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPFailure> {
        let deadline = ContinuousClock.now + timeout
        let target: HTTPURL
        if let last = lastURL, last.text == request.url {
            target = last
        } else {
            do { target = try HTTPURL(request.url) } catch {
                return .failure(.transport(redacted("bad URL \(error)", hiding: request.secrets)))
            }
            lastURL = target
        }
        let result: Result<HTTPResponse, HTTPFailure>
        do { result = try transport(for: target).transfer(request, to: target, deadline: deadline) } catch {
            result = .failure(.transport("\(error)"))
        }
        return result.mapError { failure in
            switch failure {
            case .transport(let message): .transport(redacted(message, hiding: request.secrets))
            case .noResponse(let message): .noResponse(redacted(message, hiding: request.secrets))
            case .cancelled: .cancelled
            }
        }
    }

    /// The transport for `url`'s scheme, made on first use. On the client's thread only.
    private func transport(for url: HTTPURL) throws(HTTPClientError) -> any HTTPTransport {
        if url.isHTTPS || httpTransport == .libcurl {
            if let curl { return curl }
            let made = try CurlTransport(caFile: caFile, timeout: timeout, maxResponseBytes: maxResponseBytes,
                                         userAgent: userAgent, abort: abortFlag)
            curl = made
            return made
        }
        return plain
    }
}
