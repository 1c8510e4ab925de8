import SystemIO

/// Serves the control protocol on a listening Unix socket: one child task per admitted connection,
/// suspended (no thread held) while its peer is silent, and freed as soon as the connection closes.
///
/// Hostile callers cannot starve the daemon:
/// - connections are admitted within `ConnectionLimits` (overall, per uid, a reserve for authorized
///   callers), and the limits are fitted under the descriptor limit at start, so that the journal,
///   the source and the runtime always find descriptors; a connection over a limit gets one `busy`
///   reply and is closed at once;
/// - a request line must be complete within `ControlProtocol.requestTimeout` of the moment the
///   server starts waiting for it, however slowly its bytes trickle in, and is at most
///   `ControlProtocol.maximumRequestBytes` long;
/// - refusals and errors are logged through the logger's one rate limit (`Logger.limited`): the
///   first of a kind at once, the rest as a count per minute.
///
/// Callers are checked by `SO_PEERCRED`/`SO_PEERGROUPS` (see `ControlAccess`).
package struct ControlServer: Sendable {
    /// The listen backlog of a socket the daemon makes itself (livelocd.socket sets the same with
    /// `Backlog=`): connections the kernel holds until they are accepted. They cost no descriptor of
    /// the daemon, and the server takes them off quickly (admitting or refusing each), so this only
    /// has to absorb a burst between two accept passes.
    package static let listenBacklog: Int32 = 128

    let listener: UnixSocket
    let access: ControlAccess
    let limits: ConnectionLimits
    let log: Logger
    let handle: @Sendable (ControlRequest) async -> ControlResponse

    /// - Parameters:
    ///   - log: the daemon's logger; its one rate limit (shared with the destinations) takes the
    ///     refusals and errors, which a hostile caller can repeat without end.
    ///   - handle: does what a permitted request asks (`ShareController.handle`).
    package init(listener: UnixSocket, access: ControlAccess, limits: ConnectionLimits = .standard,
                 log: Logger,
                 handle: @escaping @Sendable (ControlRequest) async -> ControlResponse) {
        self.listener = listener
        self.access = access
        self.limits = limits
        self.log = log
        self.handle = handle
    }

    /// Raises the descriptor limit, fits the connection limits under it, then accepts connections
    /// until cancelled; then waits for the open connections to finish (each is cancelled too).
    /// - Throws: `ConnectionLimitsError` when the descriptor limit is too low to serve at all,
    ///   `SystemError` when the descriptor limit cannot be read.
    package func run() async throws {
        let descriptorLimit = try OpenFileLimit.raiseSoftToHard()
        // One descriptor held in reserve: when accept fails for want of descriptors, it is let go
        // for an instant to take the pending connection off the backlog and close it.
        var spare = FileDescriptor.openNullDevice()
        let fitted = try limits.fitted(to: descriptorLimit, openNow: OpenFileLimit.openDescriptorCount() ?? 0)
        let table = ConnectionTable(limits: fitted, ownUID: access.ownUID)
        log.info("control socket: \(fitted.summary); descriptor limit \(descriptorLimit.soft)")
        defer { spare?.close() }
        try await withThrowingDiscardingTaskGroup { connections in
            while true {
                _ = try await listener.descriptor.wait(until: .readable, deadline: nil)
                // At most 64 connections per pass, then back to the wait (a suspension point), so
                // that a flood of connections cannot keep this task on its thread.
                for _ in 0..<64 {
                    let accepted: UnixSocket?
                    do throws(SystemError) { accepted = try listener.accept() } catch {
                        guard error.errno != .tooManyOpenFiles && error.errno != .tooManyOpenFilesInSystem else {
                            spare = shed(spare: spare, error: error)
                            try await Task.sleep(for: .milliseconds(10))
                            break
                        }
                        log.limited(.error, key: "accept", "control socket: \(error)") { count, window in
                            "control socket: \(count.thousandsSeparated) more accept failures in the last \(window.shortText)"
                        }
                        try await Task.sleep(for: .milliseconds(200))
                        break
                    }
                    guard let connection = accepted else { break }
                    admit(connection, table: table, into: &connections)
                }
            }
        }
    }

    /// Checks who called and whether there is room; a connection over the limits is answered
    /// `busy` and closed here, without a task of its own.
    private func admit(_ connection: UnixSocket, table: ConnectionTable, into connections: inout ThrowingDiscardingTaskGroup<any Error>) {
        let peer: PeerCredentials
        do { peer = try connection.peer() } catch {
            connection.close()
            log.limited(.warning, key: "peer", "control connection: \(error)") { count, window in
                "control connection: \(count.thousandsSeparated) more without credentials in the last \(window.shortText)"
            }
            return
        }
        let authorized = access.isAuthorized(peer)
        if let refusal = table.admit(uid: peer.uid, authorized: authorized) {
            refuse(connection, with: .failure(.busy, refusal.message))
            connection.close()
            log.limited(.warning, key: "busy uid \(peer.uid)", "refused a control connection from uid \(peer.uid) (pid \(peer.pid)): \(refusal.message)") { count, window in
                "refused \(count.thousandsSeparated) more control connections from uid \(peer.uid) in the last \(window.shortText) (busy)"
            }
            return
        }
        connections.addTask {
            defer { table.release(uid: peer.uid, authorized: authorized) }
            await serve(connection, peer: peer, authorized: authorized)
        }
    }

    /// accept failed for want of descriptors: lets the spare go, takes one pending connection off
    /// the backlog and closes it (so the listener does not stay readable for ever), then takes the
    /// spare again.
    private func shed(spare: FileDescriptor?, error: SystemError) -> FileDescriptor? {
        spare?.close()
        if let connection = try? listener.accept() {
            refuse(connection, with: .failure(.busy, "livelocd is out of file descriptors; try again"))
            connection.close()
        }
        log.limited(.error, key: "descriptors", "control socket: \(error); refusing connections until descriptors are free") { count, window in
            "control socket: refused \(count.thousandsSeparated) more connections for want of descriptors in the last \(window.shortText)"
        }
        return FileDescriptor.openNullDevice()
    }

    /// Sends `response` if the socket takes it now (it is small, the buffer empty) and ends the
    /// writing direction; the caller closes the connection.
    private func refuse(_ connection: UnixSocket, with response: ControlResponse) {
        let bytes = response.line
        _ = try? connection.send(bytes[...])
        connection.shutdownWriting()
    }

    private func serve(_ connection: UnixSocket, peer: PeerCredentials, authorized: Bool) async {
        defer { connection.close() }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        let tooLarge = ControlResponse.failure(.tooLarge, "request longer than \(ControlProtocol.maximumRequestBytes) bytes")
        // The whole line must arrive by this time, however its bytes trickle in.
        var deadline = ContinuousClock.now + ControlProtocol.requestTimeout
        do {
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    guard newline <= ControlProtocol.maximumRequestBytes else { return refuse(connection, with: tooLarge) }
                    let line = Array(pending[..<newline])
                    pending.removeSubrange(...newline)
                    try await reply(await respond(to: line, authorized: authorized, peer: peer), on: connection)
                    deadline = ContinuousClock.now + ControlProtocol.requestTimeout
                    continue
                }
                guard pending.count <= ControlProtocol.maximumRequestBytes else { return refuse(connection, with: tooLarge) }
                guard try await connection.descriptor.wait(until: .readable, deadline: deadline) else {
                    return refuse(connection, with: .failure(.timeout, "no complete request within \(ControlProtocol.requestTimeout.shortText)"))
                }
                guard let count = try connection.receive(into: &chunk) else { continue }
                if count == 0 {
                    // End of stream: a last request without its newline still gets an answer.
                    let line = pending.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }
                    if !line.isEmpty { try await reply(await respond(to: pending, authorized: authorized, peer: peer), on: connection) }
                    return
                }
                pending.append(contentsOf: chunk[..<count])
            }
        } catch is CancellationError {
            return
        } catch let error as SystemError where error.errno == .brokenPipe || error.errno == .connectionReset || error.errno == .timedOut {
            return
        } catch {
            log.limited(.warning, key: "connection error", "control connection from pid \(peer.pid): \(error)") { count, window in
                "control connections: \(count.thousandsSeparated) more failed in the last \(window.shortText)"
            }
        }
    }

    private func respond(to line: [UInt8], authorized: Bool, peer: PeerCredentials) async -> ControlResponse {
        let request: ControlRequest
        switch ControlRequest.parse(line) {
        case .success(let parsed): request = parsed
        case .failure(let failure): return .failure(failure)
        }
        guard access.permits(request, authorized: authorized) else {
            let operation = request.operation.rawValue
            log.limited(.warning, key: "forbidden uid \(peer.uid)", "refused \(operation) from uid \(peer.uid) (pid \(peer.pid)): not root nor in the control group") { count, window in
                "refused \(count.thousandsSeparated) more requests from uid \(peer.uid) in the last \(window.shortText) (forbidden)"
            }
            return .failure(.forbidden, "uid \(peer.uid) is neither root nor a member of the control group")
        }
        var response = await handle(request)
        // A public status (control.status_public) is for anyone on the machine: no share link (its key) in it.
        if !authorized { response.status?.removeSecrets() }
        return response
    }

    /// Writes the whole reply, waiting (within the request timeout) while the peer does not read.
    private func reply(_ response: ControlResponse, on connection: UnixSocket) async throws {
        let bytes = response.line
        let deadline = ContinuousClock.now + ControlProtocol.requestTimeout
        var offset = 0
        while offset < bytes.count {
            let written = try connection.send(bytes[offset...])
            offset += written
            if written == 0, !(try await connection.descriptor.wait(until: .writable, deadline: deadline)) {
                throw SystemError("send", target: connection.path, errno: .timedOut)
            }
        }
    }
}
