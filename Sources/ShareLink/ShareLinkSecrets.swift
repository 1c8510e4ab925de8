/// What one share's link is made of: an id the relay files it under and a content key only the
/// device and the link's holders know. Both are drawn on the device from the kernel's CSPRNG
/// (`SystemRandomNumberGenerator` reads `getrandom(2)`). Its description never shows the key.
package struct ShareLinkSecrets: Sendable, Equatable, CustomStringConvertible {
    /// The relay's name for the share: 128 random bits (as unguessable as a UUIDv4 and 6 bits more).
    package let id: [UInt8]
    /// The AES-256-GCM key: 256 random bits.
    package let key: [UInt8]

    package static let idByteCount = 16
    package static let keyByteCount = 32

    /// - Returns: nil unless `id` is 16 bytes and `key` 32.
    package init?(id: [UInt8], key: [UInt8]) {
        guard id.count == Self.idByteCount, key.count == Self.keyByteCount else { return nil }
        self.id = id
        self.key = key
    }

    /// A fresh id and key from the kernel's CSPRNG.
    package static func random() -> ShareLinkSecrets {
        var generator = SystemRandomNumberGenerator()
        func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
        return ShareLinkSecrets(id: bytes(idByteCount), key: bytes(keyByteCount))!
    }

    /// The id as it appears in URLs: 22 base64url characters.
    package var idText: String { Base64URL.encode(id) }
    /// The key as it appears in the link's fragment: 43 base64url characters.
    package var keyText: String { Base64URL.encode(key) }

    /// `RELAY/s/ID#KEY`: the key in the fragment, which browsers never send to the server.
    package func link(relay: String) -> String {
        "\(Self.trimmed(relay))/s/\(idText)#\(keyText)"
    }

    /// `RELAY/s/ID`, without the key: what may be logged.
    package func pageURL(relay: String) -> String {
        "\(Self.trimmed(relay))/s/\(idText)"
    }

    /// The id and key of a link `…/s/ID#KEY`; nil when it is not one.
    package init?(link: String) {
        let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let path = parts[0].split(separator: "/", omittingEmptySubsequences: false)
        guard path.count >= 2, path[path.count - 2] == "s" else { return nil }
        guard let id = Base64URL.decode(path[path.count - 1]), let key = Base64URL.decode(parts[1]) else { return nil }
        self.init(id: id, key: key)
    }

    /// 48 bytes, id then key: the form kept on the device's disk.
    package var stored: [UInt8] { id + key }

    package init?(stored: [UInt8]) {
        guard stored.count == Self.idByteCount + Self.keyByteCount else { return nil }
        self.init(id: Array(stored.prefix(Self.idByteCount)), key: Array(stored.suffix(Self.keyByteCount)))
    }

    package var description: String { "share link \(idText) (key not shown)" }

    private static func trimmed(_ relay: String) -> String {
        var relay = relay
        while relay.hasSuffix("/") { relay.removeLast() }
        return relay
    }
}
