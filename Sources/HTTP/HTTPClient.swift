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

/// The outcome of one POST.
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
/// connection open between requests (keep-alive).
///
/// `@unchecked Sendable`: the handle and buffers are touched only on `queue`, one request at a time
/// (the sink's delivery loop awaits each `post` before the next); the abort flag is atomic (C shim).
package final class HTTPClient: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    private let queue = DispatchQueue(label: "livelocd.webhook.http")
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let abortFlag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    private let url: String

    package init(url: String, caFile: String?, timeout: Duration) throws {
        if let reason = ccurl_load() {
            throw HTTPClientError(operation: "loading libcurl", message: String(cString: reason))
        }
        guard let handle = ccurl_easy_init() else {
            throw HTTPClientError(operation: "curl_easy_init", message: "failed")
        }
        self.handle = handle
        self.url = url
        abortFlag.initialize(to: 0)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let timeoutMs = max(Int(timeout.wholeMilliseconds), 1)
        try set(ccurl_setopt_string(handle, CURLOPT_URL, url), "CURLOPT_URL")
        try set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        try set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs), "CURLOPT_TIMEOUT_MS")
        try set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMs, 10_000)), "CURLOPT_CONNECTTIMEOUT_MS")
        try set(ccurl_setopt_long(handle, CURLOPT_POST, 1), "CURLOPT_POST")
        try set(ccurl_setopt_string(handle, CURLOPT_USERAGENT, "livelocd-webhook/1"), "CURLOPT_USERAGENT")
        try set(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try set(ccurl_setopt_discard_response_body(handle), "CURLOPT_WRITEFUNCTION")
        try set(ccurl_setopt_abort_flag(handle, abortFlag), "CURLOPT_XFERINFOFUNCTION")
        if let caFile {
            try set(ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
    }

    deinit {
        ccurl_easy_cleanup(handle)
        errorBuffer.deallocate()
        abortFlag.deallocate()
    }

    /// POSTs `body` with `headers` ("Name: value"); returns when the server answered, the attempt
    /// failed or timed out, or the calling task was cancelled (the transfer is aborted within about
    /// a second, then this returns `.cancelled`).
    package func post(body: [UInt8], headers: [String]) async -> HTTPOutcome {
        ccurl_flag_store(abortFlag, 0)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPOutcome, Never>) in
                queue.async { continuation.resume(returning: self.perform(body: body, headers: headers)) }
            }
        } onCancel: {
            ccurl_flag_store(abortFlag, 1)
        }
    }

    /// POSTs `body` with `headers` on the client's queue and calls `completion` there with the
    /// outcome: no task and no thread hop between the answer and whoever waits for it.
    package func post(body: [UInt8], headers: [String], completion: @escaping @Sendable (HTTPOutcome) -> Void) {
        queue.async {
            ccurl_flag_store(self.abortFlag, 0)
            completion(self.perform(body: body, headers: headers))
        }
    }

    /// Aborts the transfer in progress, if any (it ends within about a second, as `.cancelled`).
    package func abortTransfer() {
        ccurl_flag_store(abortFlag, 1)
    }

    private func perform(body: [UInt8], headers: [String]) -> HTTPOutcome {
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers + ["Content-Type: application/json", "Expect:"] {
            list = ccurl_slist_append(list, header)
        }
        defer { ccurl_slist_free_all(list) }
        errorBuffer[0] = 0
        _ = ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, list)
        _ = ccurl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        let code = body.withUnsafeBufferPointer { bytes in
            // COPYPOSTFIELDS copies the body (size from POSTFIELDSIZE_LARGE), then the transfer runs.
            _ = ccurl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return ccurl_easy_perform(handle)
        }
        _ = ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, nil)
        switch code {
        case CURLE_OK:
            var status = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            var retryAfter: curl_off_t = 0
            let hasRetryAfter = ccurl_getinfo_off_t(handle, CURLINFO_RETRY_AFTER, &retryAfter) == CURLE_OK && retryAfter > 0
            return .response(status: status, retryAfter: hasRetryAfter ? .seconds(retryAfter) : nil)
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        default:
            let detail = String(cString: errorBuffer)
            return .transportError(detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail)
        }
    }

    private func set(_ code: CURLcode, _ option: String) throws {
        guard code == CURLE_OK else {
            throw HTTPClientError(operation: option, message: String(cString: ccurl_easy_strerror(code)))
        }
    }
}
