#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// Serves the control protocol on a listening Unix socket: one child task per connection, each
/// suspended (no thread held) while its peer is silent. A connection's requests are bounded in size
/// (`ControlProtocol.maximumRequestBytes`) and in idle time (`ControlProtocol.idleTimeout`); a bad
/// request gets an error reply and touches nothing else.
///
/// Callers are checked by `SO_PEERCRED`/`SO_PEERGROUPS`: root, the daemon's own user and members of
/// the control group may do anything; anyone else only `status`, and only when it is public.
package struct ControlServer: Sendable {
    let listener: UnixSocket
    let group: gid_t?
    let statusPublic: Bool
    let log: DaemonLog
    let handle: @Sendable (ControlRequest) async -> ControlResponse

    package init(listener: UnixSocket, group: gid_t?, statusPublic: Bool, log: DaemonLog,
                 handle: @escaping @Sendable (ControlRequest) async -> ControlResponse) {
        self.listener = listener
        self.group = group
        self.statusPublic = statusPublic
        self.log = log
        self.handle = handle
    }

    /// Accepts connections until cancelled; then waits for the open connections to finish (each
    /// is cancelled too).
    package func run() async throws {
        try await withThrowingDiscardingTaskGroup { connections in
            while true {
                _ = try await listener.descriptor.wait(until: .readable)
                do {
                    while let connection = try listener.accept() {
                        connections.addTask { await serve(connection) }
                    }
                } catch {
                    // EMFILE and the like: say so, and give the system a moment instead of spinning.
                    log("control socket: \(error)")
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
    }

    private func serve(_ connection: UnixSocket) async {
        defer { connection.close() }
        let peer: PeerCredentials
        do { peer = try connection.peer() } catch {
            log("control connection: \(error)")
            return
        }
        let allowed = peer.isAllowed(group: group, ownUID: geteuid())
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        do {
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    guard newline <= ControlProtocol.maximumRequestBytes else {
                        try await reply(.failure(.tooLarge, "request longer than \(ControlProtocol.maximumRequestBytes) bytes"), on: connection)
                        return
                    }
                    let line = Array(pending[..<newline])
                    pending.removeSubrange(...newline)
                    try await reply(await respond(to: line, allowed: allowed, peer: peer), on: connection)
                    continue
                }
                guard pending.count <= ControlProtocol.maximumRequestBytes else {
                    try await reply(.failure(.tooLarge, "request longer than \(ControlProtocol.maximumRequestBytes) bytes"), on: connection)
                    return
                }
                guard try await connection.descriptor.wait(until: .readable, timeout: ControlProtocol.idleTimeout) else {
                    try await reply(.failure(.timeout, "no complete request within \(ControlProtocol.idleTimeout)"), on: connection)
                    return
                }
                guard let count = try chunk.withUnsafeMutableBytes({ buffer throws(SystemError) in try connection.receive(into: buffer) }) else { continue }
                if count == 0 {
                    // End of stream: a last request without its newline still gets an answer.
                    let line = pending.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }
                    if !line.isEmpty { try await reply(await respond(to: pending, allowed: allowed, peer: peer), on: connection) }
                    return
                }
                pending.append(contentsOf: chunk[..<count])
            }
        } catch is CancellationError {
            return
        } catch let error as SystemError where error.errno == EPIPE || error.errno == ECONNRESET {
            return
        } catch {
            log("control connection from pid \(peer.pid): \(error)")
        }
    }

    private func respond(to line: [UInt8], allowed: Bool, peer: PeerCredentials) async -> ControlResponse {
        guard let request = ControlRequest(line: line) else {
            return .failure(.badRequest, "expected one JSON object such as {\"v\":1,\"op\":\"status\"}")
        }
        guard request.v == ControlProtocol.version else {
            return .failure(.unsupportedVersion, "this daemon speaks version \(ControlProtocol.version) (\"v\":\(ControlProtocol.version))")
        }
        guard allowed || (statusPublic && request.op == "status") else {
            log("refused \(request.op ?? "request") from uid \(peer.uid) (pid \(peer.pid)): not root nor in the control group")
            return .failure(.forbidden, "uid \(peer.uid) is neither root nor a member of the control group")
        }
        return await handle(request)
    }

    /// Writes the whole reply, waiting (bounded) while the peer does not read.
    private func reply(_ response: ControlResponse, on connection: UnixSocket) async throws {
        let bytes = response.line
        var offset = 0
        while offset < bytes.count {
            let written = try bytes.withUnsafeBytes { buffer throws(SystemError) in
                try connection.send(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
            offset += written
            if written == 0, !(try await connection.descriptor.wait(until: .writable, timeout: ControlProtocol.idleTimeout)) {
                throw SystemError("send", target: connection.path, errno: ETIMEDOUT)
            }
        }
    }
}
