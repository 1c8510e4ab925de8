import Relay
import ShareLink

/// What the relay must hold on any request whatever (the parts it reads itself; HTTP's framing is
/// libmicrohttpd's). The input is read as a request: a line `METHOD PATH`, header lines
/// `Name: value`, a blank line, the body (a missing part is empty).
///
/// - The path (`RelayRoute`): no crash; a share's page or events has a 16-byte id; a route's path
///   reads back as the same route. `Last-Event-ID` is a seq or 0.
/// - The post (`RelayPost.parse`): no crash; one it takes has an id of 16 bytes, a heartbeat at
///   seq 0 and nothing else there, a body long enough to be sealed (an end may be empty), and its
///   own headers, signed, read back as the same post with a signature from the secret (and none
///   from another). The timestamp check does not overflow.
/// - The store: the post (as signed by the device) and a viewer's `next` after `Last-Event-ID`:
///   no crash; the frames a viewer gets have increasing seqs above the one it had; the store
///   stays within its byte bound; another share (stored first) is untouched.
/// - The secrets file: the input as one: each secret taken is at least 32 bytes, trimmed, not a
///   comment.
package enum RelayRequestFuzzCheck {
    static let secret = Array("fuzz-relay-secret-0123456789abcdefABCDEF".utf8)
    static let now: Int64 = 1_900_000_000

    /// The input's parts: method, path, headers (name, value), body.
    package static func request(_ input: [UInt8]) -> (method: String, path: String, headers: [(String, String)], body: [UInt8]) {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd = input.count
        var bodyStart = input.count
        if input.count >= 4 {
            for index in 0...(input.count - 4) where input[index..<(index + 4)].elementsEqual(separator) {
                headEnd = index
                bodyStart = index + 4
                break
            }
        }
        let lines = String(decoding: input[..<headEnd], as: UTF8.self).split(separator: "\r\n" as Character, omittingEmptySubsequences: false)
        let first = lines.first?.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false) ?? []
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop(while: { $0 == " " })))
        }
        return (first.first.map(String.init) ?? "", first.count > 1 ? String(first[1]) : "", headers, Array(input[bodyStart...]))
    }

    package static func violations(in input: [UInt8]) -> [FuzzViolation] {
        let (_, path, headers, body) = request(input)
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
        var violations: [FuzzViolation] = []

        let route = RelayRoute(path: path)
        switch route {
        case .page(let id), .events(let id):
            if Base64URL.decode(id)?.count != ShareLinkSecrets.idByteCount { violations.append(FuzzViolation("a share's route has a 16-byte id", path)) }
        default: break
        }
        if let again = route.path, RelayRoute(path: again) != route {
            violations.append(FuzzViolation("a route's path reads back as the route", "\(path) -> \(route) -> \(again)"))
        }
        let after = RelayRoute.lastEventID(header("Last-Event-ID"))

        let store = RelayStore(limits: limits)
        let other = ShareLinkSecrets(id: [UInt8](repeating: 7, count: 16), key: [UInt8](repeating: 7, count: 32))!.idText
        _ = store.accept(RelayPost(shareID: other, seq: 1, kind: .update, expiresAt: now + 600, timestamp: now,
                                   body: [UInt8](repeating: 1, count: 40)), signer: 0, now: now)
        let otherBefore = frames(store, other, after: 0)

        if let (post, signature) = RelayPost.parse(header: header, body: body) {
            if Base64URL.decode(post.shareID)?.count != ShareLinkSecrets.idByteCount {
                violations.append(FuzzViolation("a post taken has a 16-byte id", post.shareID))
            }
            if (post.kind == .alive) != (post.seq == LinkSealing.aliveSeq) {
                violations.append(FuzzViolation("a heartbeat and only a heartbeat is at seq 0", "\(post.kind) \(post.seq)"))
            }
            if post.kind != .end && post.body.count < LinkSealing.overheadByteCount {
                violations.append(FuzzViolation("a post's body can be sealed", "\(post.body.count) bytes"))
            }
            _ = post.isSigned(within: 300, of: now)
            if post.signer(of: signature, among: [secret]) != nil && signature != post.signature(secret: secret) {
                violations.append(FuzzViolation("only the secret's signature is taken", signature))
            }
            let signed = post.headers(secret: secret)
            let fields = Dictionary(signed.map { line -> (String, String) in
                let colon = line.firstIndex(of: ":")!
                return (String(line[..<colon]), String(line[line.index(colon, offsetBy: 2)...]))
            }, uniquingKeysWith: { first, _ in first })
            if let (again, againSignature) = RelayPost.parse(header: { fields[$0] }, body: post.body) {
                if again != post { violations.append(FuzzViolation("a post's own headers read back as the post", "\(post) -> \(again)")) }
                if again.signer(of: againSignature, among: [Array("another-secret-0123456789abcdefABCDEF".utf8), secret]) != 1 {
                    violations.append(FuzzViolation("a post signed with the secret is the secret's", "\(post)"))
                }
            } else {
                violations.append(FuzzViolation("a post's own headers read back as the post", "\(post): not read"))
            }

            _ = store.accept(post, signer: 0, now: now)
            let seqs = frames(store, post.shareID, after: after)
            if seqs != seqs.sorted() || Set(seqs).count != seqs.count || seqs.contains(where: { $0 <= after }) {
                violations.append(FuzzViolation("a viewer gets increasing seqs above its Last-Event-ID", "after \(after): \(seqs)"))
            }
            if post.shareID != other && frames(store, other, after: 0) != otherBefore {
                violations.append(FuzzViolation("a post reaches no other share", "\(post)"))
            }
            if store.totals.bytes > limits.totalBytes { violations.append(FuzzViolation("the store stays in its bound", "\(store.totals)")) }
            store.sweep(now: now + 86_400)
        }

        if case .success(let secrets) = RelaySecrets.parse(input) {
            for secret in secrets where secret.count < RelaySecrets.minimumLength || [32, 9].contains(secret.first!) || [32, 9, 13].contains(secret.last!)
                || secret.first == UInt8(ascii: "#") || secret.contains(10) {
                violations.append(FuzzViolation("a secret is 32 bytes or more, trimmed, one line, not a comment", "\(secret.count) bytes"))
            }
        }
        return violations
    }

    static var limits: RelayLimits {
        var limits = RelayLimits()
        limits.totalBytes = 64 << 10
        return limits
    }

    /// The seqs of the `id:` lines a viewer of `id` gets after `after` (none waited for).
    static func frames(_ store: RelayStore, _ id: String, after: UInt64) -> [UInt64] {
        guard case .frames(let bytes, _, _) = store.next(id, after: after, waitSeconds: 0) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { UInt64($0.dropFirst(4)) }
    }
}
