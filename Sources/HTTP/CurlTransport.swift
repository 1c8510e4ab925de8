import CCurl

/// libcurl for https:// URLs: one easy handle, whose connection libcurl keeps open between
/// requests. libcurl (and the TLS library it brings) is loaded when the first of these is made.
final class CurlTransport: HTTPTransport {
    private let handle: UnsafeMutableRawPointer
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let body = UnsafeMutablePointer<ccurl_body>.allocate(capacity: 1)
    /// The URL the handle is set to.
    private var currentURL = ""
    /// The CA certificates the server's certificate is checked against (nil: the system store).
    private let caFile: String?

    /// - Parameters:
    ///   - caFile: PEM file of CA certificates to trust instead of the system store.
    ///   - timeout: the longest one request may take, connecting included.
    ///   - maxResponseBytes: how much of a response body is kept (the rest is read and dropped).
    ///   - userAgent: the `User-Agent` header.
    ///   - abort: read by libcurl's progress callback: set, the transfer ends (`.cancelled`).
    /// - Throws: `HTTPClientError` when libcurl cannot be loaded or set up.
    init(caFile: String?, timeout: Duration, maxResponseBytes: Int, userAgent: String, abort: HTTPAbortFlag) throws(HTTPClientError) {
        if let reason = ccurl_load() {
            throw HTTPClientError(operation: "loading libcurl", message: String(cString: reason))
        }
        guard let handle = ccurl_easy_init() else {
            throw HTTPClientError(operation: "curl_easy_init", message: "failed")
        }
        self.handle = handle
        self.caFile = caFile
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let capacity = max(maxResponseBytes, 0)
        body.initialize(to: ccurl_body(data: capacity > 0 ? .allocate(capacity: capacity) : nil,
                                       capacity: capacity, length: 0, truncated: 0))
        let timeoutMs = max(Int(timeout.wholeMilliseconds), 1)
        try set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        try set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMs), "CURLOPT_TIMEOUT_MS")
        try set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMs, 10_000)), "CURLOPT_CONNECTTIMEOUT_MS")
        try set(ccurl_setopt_string(handle, CURLOPT_USERAGENT, userAgent), "CURLOPT_USERAGENT")
        try set(ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try set(ccurl_setopt_collect_response_body(handle, body), "CURLOPT_WRITEFUNCTION")
        try set(ccurl_setopt_abort_flag(handle, abort.pointer), "CURLOPT_XFERINFOFUNCTION")
        if let caFile {
            try set(ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
    }

    deinit {
        ccurl_easy_cleanup(handle)
        errorBuffer.deallocate()
        body.pointee.data?.deallocate()
        body.deallocate()
    }

    func transfer(_ request: HTTPRequest, to url: HTTPURL, deadline: ContinuousClock.Instant) -> Result<HTTPResponse, HTTPFailure> {
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
        if url.text != currentURL {
            guard ccurl_setopt_string(handle, CURLOPT_URL, url.text) == CURLE_OK else {
                currentURL = ""
                return .failure(.transport("bad URL \(url)"))
            }
            currentURL = url.text
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
        switch code {
        case CURLE_OK:
            var status = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            var retryAfter: curl_off_t = 0
            let hasRetryAfter = ccurl_getinfo_off_t(handle, CURLINFO_RETRY_AFTER, &retryAfter) == CURLE_OK && retryAfter > 0
            let kept = body.pointee.data.map { Array(UnsafeBufferPointer(start: $0, count: body.pointee.length)) } ?? []
            return .success(HTTPResponse(status: status, retryAfter: hasRetryAfter ? min(.seconds(retryAfter), .longestServerWait) : nil,
                                         body: kept, bodyTruncated: body.pointee.truncated != 0))
        case CURLE_ABORTED_BY_CALLBACK:
            return .failure(.cancelled)
        default:
            let detail = String(cString: errorBuffer)
            var message = detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail
            if code == CURLE_PEER_FAILED_VERIFICATION {
                // What was trusted, and where a private CA goes (a self-hosted server's).
                message += caFile.map { " (checked against the CA certificates of \($0))" }
                    ?? " (checked against the system's CA store; a server behind a private CA needs the destination's ca_file)"
            }
            return .failure(code == CURLE_GOT_NOTHING ? .noResponse(message) : .transport(message))
        }
    }

    private func set(_ code: CURLcode, _ option: String) throws(HTTPClientError) {
        guard code == CURLE_OK else {
            throw HTTPClientError(operation: option, message: String(cString: ccurl_easy_strerror(code)))
        }
    }
}
