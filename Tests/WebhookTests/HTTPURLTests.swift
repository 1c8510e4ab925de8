import HTTP
import Testing

/// The one check of an HTTP destination's URL.
@Suite struct HTTPURLTests {
    @Test(arguments: ["http://127.0.0.1:8080/hook", "https://example.com", "HTTPS://Example.com/a?b#c",
                      "http://[::1]:9/x", "https://user:pass@example.com/hook"])
    func aURLWithSchemeAndHostIsAccepted(text: String) throws {
        #expect(try HTTPURL(text).text == text)
    }

    @Test(arguments: [
        ("http://", "no host"), ("https:///path", "no host"), ("http://user@/x", "no host"),
        ("ftp://example.com", "not an http:// or https:// URL"), ("example.com", "not an http:// or https:// URL"),
        ("http://example.com:0/", "port must be 1-65535"), ("http://example.com:http/", "port must be 1-65535"),
        ("http://exa mple.com/", "contains white space or a control character"), ("http://[::1/", "an IPv6 host without its closing ']'"),
    ])
    func aURLThatCannotBeReachedIsRefusedWithItsReason(text: String, reason: String) {
        #expect(throws: HTTPURLError(url: HTTPURL.redacted(text), reason: reason)) { try HTTPURL(text) }
    }

    @Test func credentialsNeverAppearInTheError() {
        do { _ = try HTTPURL("http://user:hunter2@:99999/") } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }
}
