import Control
import Glibc
import SystemIO
import Testing

/// Admission of control connections within the limits, overall, per caller and with a reserve.
@Suite struct ConnectionTableTests {
    let limits = ConnectionLimits(maximumConnections: 20, maximumPerCaller: 4, reservedForAuthorized: 6, descriptorReserve: 64)
    let daemonUID: uid_t = 999

    @Test func aCallerGetsItsPerCallerMaximumAndThenBusy() {
        let table = ConnectionTable(limits: limits, ownUID: daemonUID)
        for _ in 0..<4 { #expect(table.admit(uid: 1001, authorized: false) == nil) }
        #expect(table.admit(uid: 1001, authorized: false) == .callerFull(uid: 1001, open: 4))
        #expect(table.admit(uid: 1002, authorized: false) == nil)
    }

    @Test func anAuthorizedCallerStillGetsInWhenUnauthorizedCallersHoldAllTheyMay() {
        let table = ConnectionTable(limits: limits, ownUID: daemonUID)
        // 14 = 20 - 6 reserved, spread over uids 1001… at 4 each.
        var uid: uid_t = 1001
        var admitted = 0
        while admitted < 14 {
            if table.admit(uid: uid, authorized: false) == nil { admitted += 1 } else { uid += 1 }
        }
        #expect(table.admit(uid: 2000, authorized: false) == .unauthorizedFull(open: 14))
        #expect(table.admit(uid: 0, authorized: true) == nil)         // root
        #expect(table.admit(uid: 1500, authorized: true) == nil)      // a member of the control group
        #expect(table.admit(uid: daemonUID, authorized: true) == nil) // the daemon's own user
    }

    @Test func rootAndTheDaemonUserHaveNoPerCallerLimitButTheOverallOne() {
        let table = ConnectionTable(limits: limits, ownUID: daemonUID)
        for _ in 0..<12 { #expect(table.admit(uid: 0, authorized: true) == nil) }
        for _ in 0..<8 { #expect(table.admit(uid: daemonUID, authorized: true) == nil) }
        #expect(table.admit(uid: 0, authorized: true) == .full(open: 20))
    }

    @Test func aReleasedConnectionFreesItsPlace() {
        let table = ConnectionTable(limits: limits, ownUID: daemonUID)
        for _ in 0..<4 { _ = table.admit(uid: 1001, authorized: false) }
        #expect(table.admit(uid: 1001, authorized: false) != nil)
        table.release(uid: 1001, authorized: false)
        #expect(table.admit(uid: 1001, authorized: false) == nil)
        for _ in 0..<4 { table.release(uid: 1001, authorized: false) }
        #expect(table.open == 0)
    }

    @Test func theLimitsShrinkToFitALowDescriptorLimit() throws {
        let standard = ConnectionLimits.standard
        #expect(try standard.fitted(to: OpenFileLimit(soft: 1024, hard: 1024), openNow: 20) == standard)
        let small = try standard.fitted(to: OpenFileLimit(soft: 120, hard: 120), openNow: 20)
        #expect(small.maximumConnections == 36)
        #expect(small.reservedForAuthorized == 9)
        #expect(small.maximumPerCaller == 8)
        #expect(throws: ConnectionLimitsError.tooFewDescriptors(softLimit: 80, openNow: 20, needed: 88)) {
            try standard.fitted(to: OpenFileLimit(soft: 80, hard: 80), openNow: 20)
        }
    }
}
