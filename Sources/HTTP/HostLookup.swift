@preconcurrency import Dispatch
import Locking
import SystemIO

/// Finds a host's addresses within a request's deadline. A numeric address is read at once; a
/// name is resolved (getaddrinfo, which blocks without a timeout of its own) on a thread of its
/// own while the client's thread waits at most until the deadline, looking at the abort flag
/// between waits. A lookup given up on ends on its own thread; its answer is dropped.
struct HostLookup: Sendable {
    /// Resolves a host name or a numeric address (IPv6 without brackets) for TCP to a port.
    typealias Resolve = @Sendable (_ host: String, _ port: Int) throws(AddressLookupError) -> [SocketAddress]

    let resolve: Resolve

    /// The system's resolver (getaddrinfo: /etc/hosts, DNS, …).
    static let system = HostLookup { host, port throws(AddressLookupError) in try SocketAddress.resolve(host: host, port: port) }

    func addresses(of host: String, port: Int, deadline: ContinuousClock.Instant, timeout: Duration,
                   abort: HTTPAbortFlag) throws(HTTPTransportError) -> [SocketAddress] {
        if SocketAddress.isNumeric(host) {
            do { return try resolve(host, port) } catch { throw .lookup(error) }
        }
        final class Answer: Sendable {
            let result = Locked<Result<[SocketAddress], AddressLookupError>?>(nil)
            let ready = DispatchSemaphore(value: 0)
        }
        let answer = Answer()
        let resolve = self.resolve
        do {
            try startDetachedThread(name: "http-lookup") {
                let result = Result { () throws(AddressLookupError) in try resolve(host, port) }
                answer.result.withLock { $0 = result }
                answer.ready.signal()
            }
        } catch {
            throw .system(error)
        }
        while true {
            if abort.isSet { throw .aborted }
            let now = ContinuousClock.now
            guard now < deadline else { throw .timedOut(.resolving, after: timeout, peer: host) }
            let slice = min(deadline - now, HTTPAbortFlag.checkInterval)
            if answer.ready.wait(timeout: .now() + .microseconds(Int(slice.wholeMicroseconds))) == .success { break }
        }
        switch answer.result.withLock({ $0 })! {
        case .success(let addresses): return addresses
        case .failure(let error): throw .lookup(error)
        }
    }
}
