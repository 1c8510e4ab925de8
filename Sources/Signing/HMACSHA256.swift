/// HMAC-SHA256 (RFC 2104, FIPS 198-1): a keyed SHA-256, fed in pieces like `SHA256`.
///
/// A value: a copy of one just made with a key starts another message under that key. A signer
/// that signs many messages keeps one made once (`init(key:)` hashes the key's two padded blocks)
/// and feeds a copy per message: `var mac = keyed; mac.update(message); mac.finalize()`.
package struct HMACSHA256: Sendable {
    /// The code's length, bytes.
    package static let codeByteCount = SHA256.digestByteCount

    private var inner = SHA256()
    private var outer = SHA256()

    /// Starts a code under `key` (any length: a key longer than a block, 64 bytes, is hashed first).
    package init(key: some Collection<UInt8>) {
        var block = key.count > SHA256.blockByteCount ? SHA256.hash(key) : Array(key)
        block.append(contentsOf: repeatElement(0, count: SHA256.blockByteCount - block.count))
        inner.update(block.map { $0 ^ 0x36 })
        outer.update(block.map { $0 ^ 0x5c })
    }

    /// The code of `message` under `key`, 32 bytes.
    package static func authenticationCode(key: some Collection<UInt8>, message: some Sequence<UInt8>) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(message)
        return mac.finalize()
    }

    /// Feeds more of the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        inner.update(bytes)
    }

    /// Returns the code (32 bytes). The value is spent: feed it no more.
    package mutating func finalize() -> [UInt8] {
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
