import Signing

/// The bytes of one HTTP/1.1 request on the wire, head and body in one buffer (one `send`):
/// request line, `Host` (with the port unless it is the scheme's default), `User-Agent`, Basic
/// `Authorization` for a URL's `user:password@`, `Content-Type` and `Content-Length` for a body
/// (and for every POST), then the request's own headers.
package enum HTTPRequestEncoder {
    /// - Throws: `HTTPRequestEncoderError` for a header line that is not `Name: value` or holds a
    ///   line break (it would split the request).
    /// - Parameter proxyAuthorization: through an HTTP proxy: the request line names the whole URL
    ///   (absolute-form, RFC 9112 3.2.2) and this header line, when not nil, authenticates to the proxy.
    package static func encode(_ request: HTTPRequest, to url: HTTPURL, userAgent: String,
                               throughProxy: Bool = false, proxyAuthorization: String? = nil) throws(HTTPRequestEncoderError) -> [UInt8] {
        let body = request.body.bytes
        let target = throughProxy ? "http://\(url.hostHeader)\(url.target)" : url.target
        var head = "\(request.method.rawValue) \(target) HTTP/1.1\r\nHost: \(url.hostHeader)\r\nUser-Agent: \(userAgent)\r\n"
        if throughProxy, let proxyAuthorization { head += proxyAuthorization + "\r\n" }
        if let userInfo = url.userInfo {
            head += "Authorization: Basic \(Base64.encode(userInfo.utf8))\r\n"
        }
        if let contentType = request.body.contentType { head += "Content-Type: \(contentType)\r\n" }
        if request.method == .post || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        for header in request.headers {
            let bytes = header.utf8
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex,
                  !bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPRequestEncoderError(header: String(header.prefix { $0 != ":" && $0 != "\r" && $0 != "\n" }.prefix(40)))
            }
            head += header
            head += "\r\n"
        }
        head += "\r\n"
        var bytes = Array(head.utf8)
        bytes.append(contentsOf: body)
        return bytes
    }
}
