import CCurl
import Dispatch
import LiveLocation

/// libcurl could not be loaded, initialised or configured.
package struct HTTPClientError: Error, CustomStringConvertible, Sendable, Equatable {
    package var operation: String
    package var message: String

    package init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    package var description: String { "HTTP client: \(operation): \(message)" }
}

/// The outcome of one `post` (the webhook's view of `perform`: the body is not needed there).
package enum HTTPOutcome: Sendable, Equatable {
    /// The server answered (any status); `retryAfter` from its `Retry-After` header, if any.
    case response(status: Int, retryAfter: Duration?)
    /// No complete answer: connection refused, timeout, TLS failure, reset, …
    case transportError(String)
    /// The attempt was abandoned because the waiting task was cancelled.
    case cancelled
}

/// One libcurl easy handle, used for one request at a time on its own serial queue so that
/// `curl_easy_perform` never blocks an actor or the cooperative thread pool. The handle keeps its
/// connection open between requests (keep-alive). Requests run in the order they are made.
///
/// `@unchecked Sendable`: the handle and buffers are touched only on `queue`, one request at a time;
/// the abort flag is atomic (C shim).
package final class HTTPClient: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let queue: DispatchQueue
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let abortFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    private let body = UnsafeMutablePointer<ccurl_body>.allocate(capacity: 1)
    /// The URL `post(body:headers:)` sends to.
    private let url: String

    /// A client for `perform`: each request names its own method and URL.
    ///
    /// - Parameters:
    ///   - caFile: PEM file of CA certificates to trust instead of the system store, for HTTPS.
    ///   - timeout: the longest one request may take, connecting included.
    ///   - maxResponseBytes: how much of a response body is kept (the rest is read and dropped);
    ///     0 keeps none.
    ///   - label: the queue's name and the User-Agent's product, e.g. "telegram".
    /// - Throws: `HTTPClientError` when libcurl cannot be loaded or set up.
    package convenience init(caFile: String? = nil, timeout: Duration, maxResponseBytes: Int = 64 << 10, label: String) throws {
        try self.init(url: "", caFile: caFile, timeout: timeout, maxResponseBytes: maxResponseBytes, label: label)
    }

    /// A client for `post(body:headers:)` to one `url` (the webhook's).
    package convenience init(url: String, caFile: String?, timeout: Duration) throws {
        try self.init(url: url, caFile: caFile, timeout: timeout, maxResponseBytes: 0, label: "webhook")
    }

    private init(url: String, caFile: String?, timeout: Duration, maxResponseBytes: Int, label: String) throws {
        if let reason = ccurl_load() {
            throw HTTPClientError(operation: "loading libcurl", message: String(cString: reason))
        }
        guard let handle = ccurl_easy_init() else {
            throw HTTPClientError(operation: "curl_easy_init", message: "failed")
        }
        self.handle = handle
        self.url = url
        queue = DispatchQueue(label: "livelocd.\(label).http")
        abortFlag.initialize(to: 0)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let capacity = max(maxResponseBytes, 0)
        body.initialize(to: ccurl_body(data: capacity > 0 ? .allocate(capacity: capacity) : nil,
                                       capacity: capacity, length: 0, truncated: 0))
        let timeoutMs = max(Int(timeout.wholeMilliseconds), 1)
        if !url.isEmpty { try set(ccurl_setopt_string(handle, CURLOPT_URL, url), "CURLOPT_URL") }
        try set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        try set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs), "CURLOPT_TIMEOUT_MS")
        try set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMs, 10_000)), "CURLOPT_CONNECTTIMEOUT_MS")
        try set(ccurl_setopt_string(handle, CURLOPT_USERAGENT, "livelocd-\(label)/1"), "CURLOPT_USERAGENT")
        try set(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try set(ccurl_setopt_collect_response_body(handle, body), "CURLOPT_WRITEFUNCTION")
        try set(ccurl_setopt_abort_flag(handle, abortFlag), "CURLOPT_XFERINFOFUNCTION")
        if let caFile {
            try set(ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
    }

    deinit {
        ccurl_easy_cleanup(handle)
        errorBuffer.deallocate()
        abortFlag.deallocate()
        body.pointee.data?.deallocate()
        body.deallocate()
    }

    /// POSTs `body` as JSON with `headers` ("Name: value") to the client's URL; returns when the
    /// server answered, the attempt failed or timed out, or the calling task was cancelled (the
    /// transfer is aborted within about a second, then this returns `.cancelled`).
    package func post(body: [UInt8], headers: [String]) async -> HTTPOutcome {
        Self.outcome(of: await perform(HTTPRequest(method: .post, url: url, headers: headers, body: .json(body))))
    }

    /// POSTs `body` with `headers` to the client's URL on its queue and calls `completion` there: no
    /// task and no thread hop between the answer and whoever waits for it (the webhook's receipt).
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
        ccurl_flag_store(abortFlag, 0)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, HTTPFailure>, Never>) in
                queue.async { continuation.resume(returning: self.transfer(request)) }
            }
        } onCancel: {
            ccurl_flag_store(abortFlag, 1)
        }
    }

    /// Sends `request` on the client's queue and calls `completion` there with the answer: for a
    /// destination's `send`, which must return at once. Requests run in the order of the calls.
    package func perform(_ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, HTTPFailure>) -> Void) {
        queue.async {
            ccurl_flag_store(self.abortFlag, 0)
            completion(self.transfer(request))
        }
    }

    /// Aborts the transfer under way, if any (it ends with `.cancelled` within about a second).
    package func abort() {
        ccurl_flag_store(abortFlag, 1)
    }

    private func transfer(_ request: HTTPRequest) -> Result<HTTPResponse, HTTPFailure> {
        var list: UnsafeMutablePointer<curl_slist>?
        var headers = request.headers + ["Expect:"]
        if let contentType = request.body.contentType { headers.append("Content-Type: \(contentType)") }
        for header in headers {
            list = ccurl_slist_append(list, header)
        }
        defer { ccurl_slist_free_all(list) }
        errorBuffer[0] = 0
        body.pointee.length = 0
        body.pointee.truncated = 0
        if request.url != url || url.isEmpty {
            guard ccurl_setopt_string(handle, CURLOPT_URL, request.url) == CURLE_OK else {
                return .failure(.transport(redacted("bad URL \(request.url)", hiding: request.secrets)))
            }
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, list)
        let code: CURLcode
        switch request.method {
        case .get:
            _ = ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1)
            code = ccurl_easy_perform(handle)
        case .post:
            let bytes = request.body.bytes
            _ = ccurl_setopt_long(handle, CURLOPT_POST, 1)
            _ = ccurl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            // An empty body still needs a valid pointer: NULL would mean "use the read callback".
            let payload = bytes.isEmpty ? [0] : bytes
            code = payload.withUnsafeBufferPointer { payload in
                // COPYPOSTFIELDS copies the body (size from POSTFIELDSIZE_LARGE), then the transfer runs.
                _ = ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: payload.baseAddress))
                return ccurl_easy_perform(handle)
            }
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, nil)
        if request.url != url && !url.isEmpty { _ = ccurl_setopt_string(handle, CURLOPT_URL, url) }
        switch code {
        case CURLE_OK:
            var status = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            var retryAfter: curl_off_t = 0
            let hasRetryAfter = ccurl_getinfo_off_t(handle, CURLINFO_RETRY_AFTER, &retryAfter) == CURLE_OK && retryAfter > 0
            let kept = body.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: body.pointee.length)) } ?? []
            return .success(HTTPResponse(status: status, retryAfter: hasRetryAfter ? .seconds(retryAfter) : nil,
                                         body: kept, bodyTruncated: body.pointee.truncated != 0))
        case CURLE_ABORTED_BY_CALLBACK:
            return .failure(.cancelled)
        default:
            let detail = String(cString: errorBuffer)
            let message = redacted(detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail,
                                   hiding: request.secrets)
            return .failure(code == CURLE_GOT_NOTHING ? .noResponse(message) : .transport(message))
        }
    }

    private func set(_ code: CURLcode, _ option: String) throws {
        guard code == CURLE_OK else {
            throw HTTPClientError(operation: option, message: String(cString: ccurl_easy_strerror(code)))
        }
    }
}
