import Foundation
import SystemIO
import Testing

/// TCP sockets on loopback: address lookup, the two-step connect, send and receive, errors naming the peer.
@Suite struct TCPSocketTests {
    /// A listening IPv4 socket on a free loopback port (plain Glibc: the test's own server).
    private func listener() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound && listen(fd, 4) == 0)
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func numericAddressesResolveToThemselvesAndReadBackWithTheirPort() throws {
        #expect(try SocketAddress.resolve(host: "127.0.0.1", port: 8080).map(\.description) == ["127.0.0.1:8080"])
        #expect(try SocketAddress.resolve(host: "::1", port: 443).map(\.description) == ["[::1]:443"])
        #expect(try SocketAddress.resolve(host: "::1", port: 443).first?.family == AF_INET6)
    }

    @Test func aNameThatDoesNotResolveIsAnErrorNamingIt() {
        #expect {
            _ = try SocketAddress.resolve(host: "no-such-host.invalid", port: 80)
        } throws: { error in
            "\(error)".hasPrefix("could not resolve host 'no-such-host.invalid': ")
        }
    }

    @Test func aConnectionCarriesBytesBothWaysAndSeesTheEndOfTheStream() throws {
        let (listening, port) = try listener()
        defer { close(listening) }
        let address = try #require(try SocketAddress.resolve(host: "127.0.0.1", port: port).first)
        let (socket, connected) = try TCPSocket.beginConnect(to: address)
        defer { socket.close() }
        if !connected {
            #expect(try socket.descriptor.poll(for: .writable, until: .now + .seconds(5)))
            try socket.finishConnect()
        }
        let peer = accept(listening, nil, nil)
        try #require(peer >= 0)
        let sent = try Array("ping".utf8).withUnsafeBytes { try socket.send($0) }
        #expect(sent == 4)
        var inbound = [UInt8](repeating: 0, count: 16)
        #expect(read(peer, &inbound, 16) == 4)
        #expect(write(peer, "pong", 4) == 4)
        close(peer)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try socket.descriptor.poll(for: .readable, until: .now + .seconds(5)))
        let received = try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) }
        #expect(received == 4 && buffer.prefix(4) == ArraySlice("pong".utf8))
        // The peer closed: end of stream, and nothing pending before that.
        #expect(try buffer.withUnsafeMutableBytes { try socket.receive(into: $0) } == 0)
    }

    @Test func aRefusedConnectionNamesThePeer() throws {
        let (listening, port) = try listener()
        close(listening)  // nothing listens there now
        let address = try #require(try SocketAddress.resolve(host: "127.0.0.1", port: port).first)
        #expect(throws: SystemError("connect", target: "127.0.0.1:\(port)", errno: .connectionRefused)) {
            let (socket, connected) = try TCPSocket.beginConnect(to: address)
            defer { socket.close() }
            if !connected {
                _ = try socket.descriptor.poll(for: .writable, until: .now + .seconds(5))
                try socket.finishConnect()
            }
        }
    }
}
