import HTTP
import Testing

@Suite("HTTP request encoding")
struct HTTPRequestEncoderTests {
    @Test func aPostCarriesHostWithItsPortContentTypeLengthAndTheHeadersThenTheBody() throws {
        let url = try HTTPURL("http://127.0.0.1:8080/hook?x=1#fragment")
        let request = HTTPRequest(url: url.text, headers: ["webhook-id: evt_1"], body: .json(Array(#"{"a":1}"#.utf8)))
        let text = String(decoding: try HTTPRequestEncoder.encode(request, to: url, userAgent: "livelocd-webhook/1"), as: UTF8.self)
        #expect(text == "POST /hook?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: livelocd-webhook/1\r\n"
                + "Content-Type: application/json\r\nContent-Length: 7\r\nwebhook-id: evt_1\r\n\r\n{\"a\":1}")
    }

    @Test func aGetToTheDefaultPortHasNoPortInHostAndNoLength() throws {
        let url = try HTTPURL("http://[::1]?q")
        #expect(url.hostForLookup == "::1")
        let text = String(decoding: try HTTPRequestEncoder.encode(HTTPRequest(method: .get, url: url.text), to: url, userAgent: "t"), as: UTF8.self)
        #expect(text == "GET /?q HTTP/1.1\r\nHost: [::1]\r\nUser-Agent: t\r\n\r\n")
    }

    @Test func userAndPasswordInTheURLAreSentAsBasicAuthorization() throws {
        let url = try HTTPURL("http://us%40er:p%3Ass@example.com:81/x")
        #expect(url.userInfo == "us@er:p:ss")
        #expect(url.host == "example.com" && url.port == 81 && url.target == "/x")
        let text = String(decoding: try HTTPRequestEncoder.encode(HTTPRequest(url: url.text), to: url, userAgent: "t"), as: UTF8.self)
        #expect(text.contains("\r\nAuthorization: Basic dXNAZXI6cDpzcw==\r\n"))
        #expect(text.contains("\r\nContent-Length: 0\r\n"))
    }

    @Test func aHeaderThatWouldSplitTheRequestIsRefusedWithoutShowingItsValue() throws {
        let url = try HTTPURL("http://127.0.0.1/")
        for header in ["X-Token: abc\r\nInjected: 1", "no colon", ": empty name", "X: a\u{0}b"] {
            #expect(throws: HTTPRequestEncoderError.self) {
                _ = try HTTPRequestEncoder.encode(HTTPRequest(url: url.text, headers: [header]), to: url, userAgent: "t")
            }
        }
        do {
            _ = try HTTPRequestEncoder.encode(HTTPRequest(url: url.text, headers: ["X-Token: secret\nB: c"]), to: url, userAgent: "t")
        } catch {
            #expect(!error.description.contains("secret"))
            #expect(error.description.contains("X-Token"))
        }
    }
}
