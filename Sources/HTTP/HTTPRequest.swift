/// One HTTP request for `HTTPClient.perform`: its method, URL, headers and body.
package struct HTTPRequest: Sendable, Equatable {
    /// The methods livelocd's destinations use.
    package enum Method: String, Sendable, Equatable {
        case get = "GET"
        case post = "POST"
    }

    /// What a request carries, and the `Content-Type` that goes with it.
    package enum Body: Sendable, Equatable {
        case none
        /// `application/json`: the bytes of one JSON text.
        case json([UInt8])
        /// `application/x-www-form-urlencoded`: the fields, percent-encoded in this order.
        case form([(name: String, value: String)])

        package static func == (lhs: Body, rhs: Body) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none): true
            case (.json(let a), .json(let b)): a == b
            case (.form(let a), .form(let b)): a.map(\.name) == b.map(\.name) && a.map(\.value) == b.map(\.value)
            default: false
            }
        }

        /// The `Content-Type` header's value, nil without a body.
        var contentType: String? {
            switch self {
            case .none: nil
            case .json: "application/json"
            case .form: "application/x-www-form-urlencoded"
            }
        }

        /// The bytes on the wire.
        var bytes: [UInt8] {
            switch self {
            case .none: []
            case .json(let bytes): bytes
            case .form(let fields): Array(HTTPForm.encode(fields).utf8)
            }
        }
    }

    package var method: Method
    /// `http://…` or `https://…`; it may hold a secret (the Bot API's token): see `secrets`.
    package var url: String
    /// Extra header lines, "Name: value".
    package var headers: [String]
    package var body: Body
    /// Texts that must never leave the client in an error message (a token in `url`): each is
    /// replaced by `redacted(_:hiding:)`'s mark in transport errors.
    package var secrets: [String]

    package init(method: Method = .post, url: String, headers: [String] = [], body: Body = .none, secrets: [String] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.secrets = secrets
    }
}
