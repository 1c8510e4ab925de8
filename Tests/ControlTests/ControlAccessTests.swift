import Control
import Glibc
import SystemIO
import Testing

@Suite struct ControlAccessTests {
    let access = ControlAccess(group: 500, statusPublic: false, ownUID: 999)

    private func peer(uid: uid_t, gid: gid_t = 100, groups: [gid_t] = []) -> PeerCredentials {
        PeerCredentials(pid: 1, uid: uid, gid: gid, groups: groups)
    }

    @Test func rootTheDaemonsUserAndTheControlGroupAreAuthorized() {
        #expect(access.isAuthorized(peer(uid: 0)))
        #expect(access.isAuthorized(peer(uid: 999)))
        #expect(access.isAuthorized(peer(uid: 1001, gid: 500)))
        #expect(access.isAuthorized(peer(uid: 1001, groups: [20, 500])))
        #expect(!access.isAuthorized(peer(uid: 1001, groups: [20])))
    }

    @Test func othersMayOnlyAskForAPublicStatus() {
        #expect(!access.permits(.status, authorized: false))
        let open = ControlAccess(group: nil, statusPublic: true, ownUID: 999)
        #expect(open.permits(.status, authorized: false))
        #expect(!open.permits(.stop, authorized: false))
        #expect(!open.permits(.start(.oneHour), authorized: false))
        #expect(open.permits(.stop, authorized: true))
    }
}
