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
        // Written straight into the one buffer, sized for the usual head and the body: no
        // intermediate strings, one allocation.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256 + request.headers.reduce(0) { $0 + $1.utf8.count + 2 } + body.count)
        bytes += request.method.rawValue.utf8
        bytes.append(UInt8(ascii: " "))
        if throughProxy {
            bytes += "http://".utf8
            bytes += url.hostHeader.utf8
        }
        bytes += url.target.utf8
        bytes += " HTTP/1.1\r\nHost: ".utf8
        bytes += url.hostHeader.utf8
        bytes += "\r\nUser-Agent: ".utf8
        bytes += userAgent.utf8
        bytes += crlf
        if throughProxy, let proxyAuthorization { line(proxyAuthorization, to: &bytes) }
        if let userInfo = url.userInfo { line("Authorization: Basic \(Base64.encode(userInfo.utf8))", to: &bytes) }
        if let contentType = request.body.contentType {
            bytes += "Content-Type: ".utf8
            line(contentType, to: &bytes)
        }
        if request.method == .post || !body.isEmpty { line("Content-Length: \(body.count)", to: &bytes) }
        for header in request.headers {
            let utf8 = header.utf8
            guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")), colon != utf8.startIndex,
                  !utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw HTTPRequestEncoderError(header: String(header.prefix { $0 != ":" && $0 != "\r" && $0 != "\n" }.prefix(40)))
            }
            line(header, to: &bytes)
        }
        bytes += crlf
        bytes += body
        return bytes
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]

    /// `text` and CRLF.
    private static func line(_ text: String, to bytes: inout [UInt8]) {
        bytes += text.utf8
        bytes += crlf
    }
}
