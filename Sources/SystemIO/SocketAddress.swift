#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and port, as `getaddrinfo` gives it and `connect` takes it.
package struct SocketAddress: Sendable, CustomStringConvertible {
    private var storage: sockaddr_storage
    package let length: socklen_t

    /// `AF_INET` or `AF_INET6`.
    package var family: Int32 { Int32(storage.ss_family) }

    /// Copies `length` bytes of the address at `address`.
    init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        var storage = sockaddr_storage()
        let size = min(Int(length), MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: size)) }
        self.storage = storage
        self.length = socklen_t(size)
    }

    /// The addresses of `host` (a name, or a numeric IPv4 or IPv6 address without brackets) for TCP
    /// to `port`, in the order the resolver prefers (RFC 6724). Blocks the calling thread while a
    /// name is resolved (DNS): call it from a thread of its own, never the cooperative pool.
    /// - Throws: `AddressLookupError` (`could not resolve host 'x': Name or service not known`).
    package static func resolve(host: String, port: Int) throws(AddressLookupError) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let result = getaddrinfo(host, String(port), &hints, &list)
        guard result == 0 else {
            let reason = result == EAI_SYSTEM ? SystemError("getaddrinfo").description : String(cString: gai_strerror(result))
            throw AddressLookupError(host: host, reason: reason)
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr,
               current.pointee.ai_family == AF_INET || current.pointee.ai_family == AF_INET6 {
                addresses.append(SocketAddress(address, length: current.pointee.ai_addrlen))
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw AddressLookupError(host: host, reason: "no IPv4 or IPv6 address") }
        return addresses
    }

    /// Whether `host` is a numeric IPv4 or IPv6 address (without brackets): resolving it asks no
    /// name service and never blocks.
    package static func isNumeric(_ host: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    /// Calls `body` with the address as a `sockaddr`.
    package func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    /// A NUL-terminated C string in `buffer` (inet_ntop's), as text.
    private static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    package var description: String {
        withUnsafeBytes(of: storage) { raw -> String in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if family == AF_INET {
                let address = raw.load(as: sockaddr_in.self)
                var ip = address.sin_addr
                inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                return "\(Self.text(of: text)):\(UInt16(bigEndian: address.sin_port))"
            }
            let address = raw.load(as: sockaddr_in6.self)
            var ip = address.sin6_addr
            inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
            return "[\(Self.text(of: text))]:\(UInt16(bigEndian: address.sin6_port))"
        }
    }
}
