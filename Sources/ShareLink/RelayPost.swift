import Signing

/// What a device posts to the relay for one event, and how the post is authenticated: the fields
/// travel as headers (`Link-Share`, `Link-Seq`, `Link-Kind`, `Link-Expires-At`, `Link-Timestamp`,
/// `Link-Signature`), the sealed event as the body (docs/formats.md, "Share links").
///
/// The signature is Standard Webhooks' idea with the relay's fields: `v1,` and the base64 of
/// HMAC-SHA256(secret, "v1\nID\nSEQ\nKIND\nEXPIRES\nTIMESTAMP\n" ‖ body). The timestamp bounds a
/// replay to the relay's tolerance, and a replay within it is a seq the relay already has: a no-op.
package struct RelayPost: Sendable, Equatable {
    /// What a post carries: an update of the position, the share's end, or a heartbeat without a
    /// position (the device is on and has nothing new: no GPS fix, or standing still), posted while
    /// no update goes out, so that viewers tell "no GPS fix" from "device offline".
    package enum Kind: String, Sendable {
        case update
        case end
        /// Sealed with seq 0 in its associated data (`LinkSealing.aliveSeq`) and posted with
        /// `Link-Seq: 0`: not a place in the trail; the relay keeps the newest only.
        case alive
    }

    /// The share's link id, base64url (22 characters).
    package var shareID: String
    package var seq: UInt64
    package var kind: Kind
    /// When the share ends, Unix seconds: the relay drops a share that outlives it without an end.
    package var expiresAt: Int64
    /// When the post was signed, Unix seconds.
    package var timestamp: Int64
    /// The sealed event (`LinkSealing.seal`).
    package var body: [UInt8]

    package init(shareID: String, seq: UInt64, kind: Kind, expiresAt: Int64, timestamp: Int64, body: [UInt8]) {
        self.shareID = shareID
        self.seq = seq
        self.kind = kind
        self.expiresAt = expiresAt
        self.timestamp = timestamp
        self.body = body
    }

    /// The post a request's headers (`header(name)`, nil when absent) and body make, and its
    /// `Link-Signature` (not checked here); nil when a field is missing or malformed: an id that
    /// is not 16 bytes of base64url, a seq or time that is not a number, an unknown kind, a
    /// heartbeat not at seq 0 or an event at it, a body too short to be sealed (an `end` may be
    /// empty). The relay's one reading of a post.
    package static func parse(header: (String) -> String?, body: [UInt8]) -> (post: RelayPost, signature: String)? {
        guard let id = header("Link-Share"), Base64URL.decode(id)?.count == ShareLinkSecrets.idByteCount,
              let seq = header("Link-Seq").flatMap(UInt64.init),
              let kind = header("Link-Kind").flatMap(Kind.init(rawValue:)),
              (kind == .alive) == (seq == LinkSealing.aliveSeq),
              let expiresAt = header("Link-Expires-At").flatMap(Int64.init),
              let timestamp = header("Link-Timestamp").flatMap(Int64.init),
              let signature = header("Link-Signature"),
              kind == .end || body.count >= LinkSealing.overheadByteCount else { return nil }
        return (RelayPost(shareID: id, seq: seq, kind: kind, expiresAt: expiresAt, timestamp: timestamp, body: body), signature)
    }

    /// Whether the post was signed within `toleranceSeconds` of `now` (Unix seconds): any Int64
    /// may come in a header, so the difference is taken without an overflow.
    package func isSigned(within toleranceSeconds: Int64, of now: Int64) -> Bool {
        let (skew, overflow) = now.subtractingReportingOverflow(timestamp)
        return !overflow && skew.magnitude <= UInt64(max(0, toleranceSeconds))
    }

    /// The bytes the signature covers.
    package var signedContent: [UInt8] {
        Array("v1\n\(shareID)\n\(seq)\n\(kind.rawValue)\n\(expiresAt)\n\(timestamp)\n".utf8) + body
    }

    /// `v1,<base64 HMAC-SHA256>` under `secret`.
    package func signature(secret: [UInt8]) -> String {
        "v1," + Base64.encode(HMACSHA256.authenticationCode(key: secret, message: signedContent))
    }

    /// The index in `secrets` of the secret `signature` was made with, nil when none: compared in
    /// constant time.
    package func signer(of signature: String, among secrets: [[UInt8]]) -> Int? {
        guard signature.hasPrefix("v1,"), let given = try? Base64.decode(signature.dropFirst(3)), given.count == 32 else { return nil }
        var found: Int?
        for (index, secret) in secrets.enumerated() {
            let expected = HMACSHA256.authenticationCode(key: secret, message: signedContent)
            var difference: UInt8 = 0
            for (a, b) in zip(expected, given) { difference |= a ^ b }
            if difference == 0 && found == nil { found = index }
        }
        return found
    }

    /// The request's headers, signed with `secret`.
    package func headers(secret: [UInt8]) -> [String] {
        ["Link-Share: \(shareID)", "Link-Seq: \(seq)", "Link-Kind: \(kind.rawValue)",
         "Link-Expires-At: \(expiresAt)", "Link-Timestamp: \(timestamp)", "Link-Signature: \(signature(secret: secret))"]
    }
}

/// The relay's secrets file, and the device's: one secret per line (blank lines and `#` comments
/// skipped), each at least 32 characters (`openssl rand -base64 32` makes one); the line's bytes
/// are the HMAC key.
package enum RelaySecrets {
    package static let minimumLength = 32

    /// - Returns: the secrets, or a reason (naming the line, never the secret) when one is too short
    ///   or there is none.
    package static func parse(_ text: [UInt8]) -> Result<[[UInt8]], RelaySecretsError> {
        var secrets: [[UInt8]] = []
        for (number, line) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = Array(line)
            while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { line.removeLast() }
            while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line.removeFirst() }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            guard line.count >= minimumLength else { return .failure(.tooShort(line: number + 1)) }
            secrets.append(line)
        }
        return secrets.isEmpty ? .failure(.none) : .success(secrets)
    }
}

/// Why a secrets file cannot be used.
package enum RelaySecretsError: Error, CustomStringConvertible, Sendable, Equatable {
    case tooShort(line: Int)
    case none

    package var description: String {
        switch self {
        case .tooShort(let line): "line \(line): a secret of fewer than \(RelaySecrets.minimumLength) characters"
        case .none: "no secret in it"
        }
    }
}
