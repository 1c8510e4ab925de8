#if canImport(Glibc)
import Glibc
#endif
import Locking

/// Counts the open control connections, overall, of unauthorized callers and per uid, and admits
/// a new one only within `ConnectionLimits`. An entry lives only while its uid has connections
/// open: the table's size follows the open connections, not the callers ever seen.
package final class ConnectionTable: Sendable {
    /// Why a connection was not admitted.
    package enum Refusal: Sendable, Equatable {
        /// All `maximumConnections` are in use.
        case full(open: Int)
        /// The unauthorized callers together hold all they may.
        case unauthorizedFull(open: Int)
        /// This uid holds `maximumPerCaller`.
        case callerFull(uid: uid_t, open: Int)

        /// The `busy` reply's message.
        package var message: String {
            switch self {
            case .full(let open): "too many control connections (\(open) open); try again"
            case .unauthorizedFull(let open): "too many control connections from callers outside the control group (\(open) open); try again"
            case .callerFull(let uid, let open): "too many control connections from uid \(uid) (\(open) open, the most per caller); try again"
            }
        }
    }

    private struct Counts {
        var total = 0
        var unauthorized = 0
        var perUID: [uid_t: Int] = [:]
    }

    private let counts = Locked(Counts())
    package let limits: ConnectionLimits
    private let ownUID: uid_t

    package init(limits: ConnectionLimits, ownUID: uid_t = geteuid()) {
        self.limits = limits
        self.ownUID = ownUID
    }

    /// Admits a connection of `uid` (counted until `release`), or says why not.
    package func admit(uid: uid_t, authorized: Bool) -> Refusal? {
        let capped = uid != 0 && uid != ownUID
        return counts.withLock { counts -> Refusal? in
            guard counts.total < limits.maximumConnections else { return .full(open: counts.total) }
            if !authorized && counts.unauthorized >= limits.maximumUnauthorized {
                return .unauthorizedFull(open: counts.unauthorized)
            }
            let mine = counts.perUID[uid] ?? 0
            if capped && mine >= limits.maximumPerCaller { return .callerFull(uid: uid, open: mine) }
            counts.total += 1
            if !authorized { counts.unauthorized += 1 }
            counts.perUID[uid] = mine + 1
            return nil
        }
    }

    /// Forgets one admitted connection of `uid`.
    package func release(uid: uid_t, authorized: Bool) {
        counts.withLock { counts in
            counts.total -= 1
            if !authorized { counts.unauthorized -= 1 }
            let mine = (counts.perUID[uid] ?? 1) - 1
            counts.perUID[uid] = mine > 0 ? mine : nil
        }
    }

    /// The connections open now.
    package var open: Int { counts.withLock { $0.total } }
}
