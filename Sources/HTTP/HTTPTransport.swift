/// How `HTTPClient` moves one request and reads its answer: the built-in HTTP/1.1 client over a
/// TCP socket for http:// (`PlainHTTPTransport`), libcurl for https:// (`CurlTransport`). Called on
/// the client's queue only, one request at a time, blocking that queue's thread. Failure messages
/// are redacted by the client, not here.
protocol HTTPTransport: AnyObject {
    /// Sends `request` to `url` and reads the answer; gives up at `deadline` (`.transport`, a
    /// timeout) or when the client's abort flag is set (`.cancelled`).
    func transfer(_ request: HTTPRequest, to url: HTTPURL, deadline: ContinuousClock.Instant) -> Result<HTTPResponse, HTTPFailure>
}
