import SystemIO

/// How many control connections the daemon holds at once, so that no caller can use up its file
/// descriptors (each connection is one) or its memory.
///
/// - At most `maximumConnections` at once, everyone together.
/// - At most `maximumPerCaller` from one uid, except root's and the daemon's own.
/// - `reservedForAuthorized` of the overall number are kept for authorized callers (root, the
///   daemon's user, the control group): callers without that right hold at most
///   `maximumConnections - reservedForAuthorized` together, so that an authorized `status` or
///   `stop` still gets through while others hold all they may.
///
/// A connection over a limit gets one `busy` error reply and is closed at once.
package struct ConnectionLimits: Sendable, Equatable {
    package var maximumConnections: Int
    package var maximumPerCaller: Int
    package var reservedForAuthorized: Int
    /// Descriptors left free beyond the connections, for everything else the daemon opens later
    /// (the journal's files, the source's socket, HTTP connections, the runtime's own).
    package var descriptorReserve: Int

    package init(maximumConnections: Int = 64, maximumPerCaller: Int = 8, reservedForAuthorized: Int = 16,
                 descriptorReserve: Int = 64) {
        self.maximumConnections = maximumConnections
        self.maximumPerCaller = maximumPerCaller
        self.reservedForAuthorized = reservedForAuthorized
        self.descriptorReserve = descriptorReserve
    }

    /// The limits livelocd uses: 64 connections, 8 per caller, 16 kept for authorized callers,
    /// 64 descriptors kept free.
    package static let standard = ConnectionLimits()

    /// Callers without the right to control hold at most this many connections together.
    package var maximumUnauthorized: Int { max(0, maximumConnections - reservedForAuthorized) }

    /// These limits fitted to the process's descriptor limit: the soft limit is first raised to the
    /// hard one; then the connections, with `openNow` descriptors already open and the reserve kept
    /// free, must fit under it. Fewer connections are allowed when they would not (never fewer
    /// than 4, with 2 kept for authorized callers).
    /// - Throws: `ConnectionLimitsError.tooFewDescriptors` when not even that fits.
    package func fitted(to limit: OpenFileLimit, openNow: Int) throws(ConnectionLimitsError) -> ConnectionLimits {
        let room = limit.soft - openNow - descriptorReserve
        guard room < maximumConnections else { return self }
        guard room >= 4 else {
            throw .tooFewDescriptors(softLimit: limit.soft, openNow: openNow, needed: openNow + descriptorReserve + 4)
        }
        var fitted = self
        fitted.maximumConnections = room
        fitted.reservedForAuthorized = max(2, room / 4)
        fitted.maximumPerCaller = min(maximumPerCaller, fitted.maximumUnauthorized)
        return fitted
    }

    /// One line for the log: `at most 64 control connections (8 per caller, 16 kept for authorized callers)`.
    package var summary: String {
        "at most \(maximumConnections) control connections (\(maximumPerCaller) per caller, "
            + "\(reservedForAuthorized) kept for authorized callers)"
    }
}
