/// The descriptor limit is too low to run safely.
package enum ConnectionLimitsError: Error, CustomStringConvertible, Equatable {
    case tooFewDescriptors(softLimit: Int, openNow: Int, needed: Int)

    package var description: String {
        switch self {
        case .tooFewDescriptors(let soft, let open, let needed):
            "the descriptor limit (RLIMIT_NOFILE) is \(soft) with \(open) open; livelocd needs at least "
                + "\(needed) (raise LimitNOFILE= or ulimit -n)"
        }
    }
}
