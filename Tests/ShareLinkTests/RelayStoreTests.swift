import Relay
import ShareLink
import Testing

@Suite struct RelayStoreTests {
    let id = ShareLinkSecrets.random().idText
    let now: Int64 = 1_900_000_000

    func post(_ seq: UInt64, _ kind: RelayPost.Kind = .update, bytes: Int = 400, expiresAt: Int64? = nil) -> RelayPost {
        RelayPost(shareID: id, seq: seq, kind: kind, expiresAt: expiresAt ?? now + 900, timestamp: now, body: [UInt8](repeating: 0xA5, count: bytes))
    }

    func seqs(_ next: RelayStore.Next) -> [UInt64] {
        guard case .frames(let frames, _, _) = next else { return [] }
        return String(decoding: frames, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { UInt64($0.dropFirst(4)) }
    }

    @Test func anEightHourShareAtOneHertzKeepsItsWholeTrail() {
        let store = RelayStore()
        // A livelocd update is ~330 bytes of JSON, sealed 358.
        for seq in 1...UInt64(8 * 3600) { #expect(store.accept(post(seq, bytes: 358), signer: 0, now: now) == .stored) }
        let totals = store.totals
        #expect(totals.events == 8 * 3600)
        #expect(totals.bytes < store.limits.bytesPerShare)
        let all = seqs(store.next(id, after: 0, waitSeconds: 0))
        #expect(all.first == 1 && all.last == 28_800 && all.count == 28_800)
        print("relay: 8 h at 1 Hz: \(totals.bytes) bytes held, \(totals.bytes / totals.events) per update")
    }

    @Test func aShareOverItsBoundsKeepsItsNewestEvents() {
        var limits = RelayLimits()
        limits.eventsPerShare = 100
        let store = RelayStore(limits: limits)
        for seq in 1...250 { _ = store.accept(post(UInt64(seq)), signer: 0, now: now) }
        #expect(store.totals.events == 100)
        #expect(seqs(store.next(id, after: 0, waitSeconds: 0)) == Array(151...250))
        // Resumed after Last-Event-ID 240: only what came after.
        #expect(seqs(store.next(id, after: 240, waitSeconds: 0)) == Array(241...250))
    }

    @Test func aRepeatedSeqIsAcknowledgedAndChangesNothingAndAnotherDeviceIsRefused() {
        let store = RelayStore()
        #expect(store.accept(post(1), signer: 2, now: now) == .stored)
        #expect(store.accept(post(2), signer: 2, now: now) == .stored)
        #expect(store.accept(post(2), signer: 2, now: now) == .duplicate)
        #expect(store.accept(post(1), signer: 2, now: now) == .duplicate)
        #expect(store.accept(post(3), signer: 1, now: now) == .forbidden)
        #expect(store.totals.events == 2)
    }

    @Test func anEndedShareKeepsItsLastPositionAndEndThenAnswersGoneThenIsForgotten() {
        var limits = RelayLimits()
        limits.endedRetentionSeconds = 60
        limits.goneRetentionSeconds = 600
        let store = RelayStore(limits: limits)
        for seq in 1...10 { _ = store.accept(post(UInt64(seq)), signer: 0, now: now) }
        #expect(store.page(id) == .live)
        #expect(store.accept(post(11, .end, bytes: 60), signer: 0, now: now) == .stored)
        #expect(store.page(id) == .ended)
        guard case .frames(_, let last, let finished) = store.next(id, after: 0, waitSeconds: 0) else { Issue.record("no frames"); return }
        #expect(last == 11 && finished)
        #expect(seqs(store.next(id, after: 0, waitSeconds: 0)) == [10, 11])
        #expect(store.totals.events == 2)
        #expect(store.accept(post(12), signer: 0, now: now) == .gone)
        store.sweep(now: now + 61)
        #expect(store.page(id) == .gone)
        #expect(store.totals.bytes == 0 && store.totals.shares == 0)
        #expect(store.next(id, after: 0, waitSeconds: 0) == .closed)
        #expect(store.accept(post(13), signer: 0, now: now) == .gone)
        store.sweep(now: now + 61 + 601)
        #expect(store.page(id) == .unknown)
    }

    @Test func aShareWhoseDeviceFallsSilentPastItsExpiryEnds() {
        let store = RelayStore()
        _ = store.accept(post(1, expiresAt: now + 60), signer: 0, now: now)
        store.sweep(now: now + 60 + store.limits.expiryGraceSeconds)
        #expect(store.page(id) == .live)
        store.sweep(now: now + 61 + store.limits.expiryGraceSeconds)
        #expect(store.page(id) == .ended)
        guard case .frames(let frames, _, true) = store.next(id, after: 1, waitSeconds: 0) else { Issue.record("not ended"); return }
        #expect(String(decoding: frames, as: UTF8.self) == "id: 2\nevent: end\ndata: \n\n")
    }

    @Test func sharesAndBytesPastTheRelaysBoundsAreRefusedForNow() {
        var limits = RelayLimits()
        limits.shares = 2
        limits.totalBytes = 4000
        let store = RelayStore(limits: limits)
        let ids = (0..<3).map { _ in ShareLinkSecrets.random().idText }
        func post(_ share: String, _ seq: UInt64) -> RelayPost {
            RelayPost(shareID: share, seq: seq, kind: .update, expiresAt: now + 900, timestamp: now, body: [UInt8](repeating: 1, count: 400))
        }
        #expect(store.accept(post(ids[0], 1), signer: 0, now: now) == .stored)
        #expect(store.accept(post(ids[1], 1), signer: 0, now: now) == .stored)
        #expect(store.accept(post(ids[2], 1), signer: 0, now: now) == .full)
        var seq: UInt64 = 2
        while store.accept(post(ids[0], seq), signer: 0, now: now) == .stored { seq += 1 }
        #expect(store.totals.bytes <= 4000)
        #expect(store.page(ids[2]) == .unknown)
    }

    @Test func unknownIdsAreThrottledPerAddress() {
        let store = RelayStore()
        let allowed = (0..<40).filter { _ in store.mayAskUnknown(address: "192.0.2.1", now: now) }.count
        #expect(allowed == store.limits.unknownBurst)
        #expect(store.mayAskUnknown(address: "192.0.2.2", now: now))
        #expect(!store.mayAskUnknown(address: "192.0.2.1", now: now + 1))
        #expect(store.mayAskUnknown(address: "192.0.2.1", now: now + 7))
    }

    @Test func aWaitingViewerWakesForTheNextEvent() async throws {
        let store = RelayStore()
        _ = store.accept(post(1), signer: 0, now: now)
        let waiting = Task.detached { [id] in store.next(id, after: 1, waitSeconds: 10) }
        try await Task.sleep(for: .milliseconds(200))
        let start = ContinuousClock.now
        _ = store.accept(post(2), signer: 0, now: now)
        let next = await waiting.value
        #expect(seqs(next) == [2])
        #expect(ContinuousClock.now - start < .seconds(2))
        #expect(store.next(id, after: 2, waitSeconds: 1) == .heartbeat)
    }

    /// Extreme values a signed post may carry (the signature covers them, it does not bound them).
    @Test func extremeSeqsAndTimesNeitherOverflowNorLinger() {
        let store = RelayStore()
        let post = RelayPost(shareID: id, seq: .max, kind: .update, expiresAt: .max, timestamp: .min, body: [1])
        #expect(store.accept(post, signer: 0, now: now) == .storedMissingTrail)
        store.sweep(now: now + 7 * 86_400 + store.limits.expiryGraceSeconds + 1)
        #expect(store.page(id) == .ended)
        let other = ShareLinkSecrets.random().idText
        _ = store.accept(RelayPost(shareID: other, seq: 1, kind: .update, expiresAt: .min, timestamp: .max, body: [1]), signer: 0, now: now)
        store.sweep(now: now + store.limits.expiryGraceSeconds + 1)
        #expect(store.page(other) == .ended)
    }

    /// A device's heartbeat (`alive`): outside the trail (no `id:`, no seq), the newest only, each
    /// to each viewer once and to a late viewer after the trail; it starts no share, keeps a silent
    /// share from ending, and goes at the end.
    @Test func aHeartbeatIsKeptNewestOnlyOutsideTheTrailAndReachesEachViewerOnce() {
        let store = RelayStore()
        func beat(at timestamp: Int64, _ byte: UInt8) -> RelayPost {
            RelayPost(shareID: id, seq: 0, kind: .alive, expiresAt: now + 60, timestamp: timestamp, body: [UInt8](repeating: byte, count: 40))
        }
        #expect(store.accept(beat(at: now, 1), signer: 0, now: now) == .unknownShare)
        #expect(store.page(id) == .unknown)
        _ = store.accept(post(1, expiresAt: now + 60), signer: 0, now: now)
        #expect(store.accept(beat(at: now + 10, 1), signer: 1, now: now + 10) == .forbidden)
        #expect(store.accept(beat(at: now + 10, 1), signer: 0, now: now + 10) == .stored)
        #expect(store.accept(beat(at: now + 10, 2), signer: 0, now: now + 10) == .duplicate)
        #expect(store.accept(beat(at: now + 70, 3), signer: 0, now: now + 70) == .stored)
        #expect(store.totals.events == 1)
        let third = String(decoding: RelayStore.frame(seq: 0, kind: .alive, body: [UInt8](repeating: 3, count: 40)), as: UTF8.self)
        #expect(!third.contains("id:") && third.hasPrefix("event: alive\n"))

        // A late viewer: the trail, then the newest heartbeat; then nothing new until the next.
        var alive: UInt64 = 0
        guard case .frames(let frames, let last, false) = store.next(id, after: 0, alive: &alive, waitSeconds: 0) else { Issue.record("no frames"); return }
        let text = String(decoding: frames, as: UTF8.self)
        #expect(last == 1 && text.hasPrefix("id: 1\nevent: update\n") && text.hasSuffix(third))
        #expect(text.components(separatedBy: "event: alive").count == 2)
        #expect(store.next(id, after: 1, alive: &alive, waitSeconds: 0) == .heartbeat)
        #expect(store.accept(beat(at: now + 130, 4), signer: 0, now: now + 130) == .stored)
        guard case .frames(let again, 1, false) = store.next(id, after: 1, alive: &alive, waitSeconds: 0) else { Issue.record("no heartbeat"); return }
        #expect(String(decoding: again, as: UTF8.self).hasPrefix("event: alive\n"))

        // Past the expiry the update alone gave (60 s + grace), the heartbeats kept it live.
        store.sweep(now: now + 61 + store.limits.expiryGraceSeconds)
        #expect(store.page(id) == .live)
        #expect(store.accept(post(2, .end, bytes: 60), signer: 0, now: now + 140) == .stored)
        #expect(store.accept(beat(at: now + 150, 5), signer: 0, now: now + 150) == .gone)
        var fresh: UInt64 = 0
        guard case .frames(let endFrames, _, true) = store.next(id, after: 0, alive: &fresh, waitSeconds: 0) else { Issue.record("not ended"); return }
        #expect(!String(decoding: endFrames, as: UTF8.self).contains("event: alive"))
    }

    /// A relay restarted mid-share: the device's next post begins the share here at its seq (202:
    /// send the trail again); the events before it then fill in, in any order, once each, and a
    /// new viewer gets the whole trail in order; nothing else below the last seq is taken.
    @Test func aShareBegunMidWayTakesItsTrailAgainInAnyOrder() {
        let store = RelayStore()
        #expect(store.accept(post(7), signer: 0, now: now) == .storedMissingTrail)
        #expect(store.accept(post(8), signer: 0, now: now) == .stored)
        for seq in [1, 2, 5, 3, 4, 6] as [UInt64] { #expect(store.accept(post(seq), signer: 0, now: now) == .stored) }
        #expect(store.accept(post(3), signer: 0, now: now) == .duplicate)
        #expect(store.accept(post(3), signer: 1, now: now) == .forbidden)
        #expect(seqs(store.next(id, after: 0, waitSeconds: 0)) == Array(1...8))
        #expect(seqs(store.next(id, after: 4, waitSeconds: 0)) == Array(5...8))
        #expect(store.totals.events == 8)
        // A share begun at seq 1 takes nothing below its last seq.
        let whole = RelayStore()
        let other = ShareLinkSecrets.random().idText
        func at(_ seq: UInt64) -> RelayPost { RelayPost(shareID: other, seq: seq, kind: .update, expiresAt: now + 900, timestamp: now, body: [UInt8](repeating: 1, count: 40)) }
        #expect(whole.accept(at(1), signer: 0, now: now) == .stored)
        #expect(whole.accept(at(3), signer: 0, now: now) == .stored)
        #expect(whole.accept(at(2), signer: 0, now: now) == .duplicate)
    }
}
