#if canImport(Glibc)
import Glibc
#endif
import ShareLink

/// What the relay holds: per share only sealed events (as the SSE frames viewers get), bounded,
/// and for ended shares a small tombstone. Thread-safe: MHD runs one thread per connection; a
/// viewer's thread waits on its share's condition for the next event.
///
/// Times are wall-clock Unix seconds, given by the caller (tests pass their own).
package final class RelayStore: @unchecked Sendable {
    /// One post's fate.
    package enum PostResult: Sendable, Equatable {
        /// Stored and pushed to the viewers.
        case stored
        /// A seq the share already has (a retry, a replay): nothing changes; acknowledged.
        case duplicate
        /// The share ended here; nothing more is taken.
        case gone
        /// The share was made with another device's secret.
        case forbidden
        /// Over the relay's bounds (shares, bytes): refused for now.
        case full
        /// A heartbeat for a share the relay does not have (it starts none): 404.
        case unknownShare
        /// Stored as the first event of a share the relay did not have, but not the share's first
        /// (seq > 1: the relay restarted, or was replaced, mid-share): the device should send the
        /// events before it again, which the relay then fills in (202).
        case storedMissingTrail
    }

    /// What a share's page is.
    package enum PageState: Sendable, Equatable {
        case live
        case ended
        case gone
        case unknown
    }

    /// What a viewer's stream gets next.
    package enum Next: Sendable, Equatable {
        /// SSE frames after the viewer's seq, the last seq in them, and whether the stream is over.
        case frames([UInt8], lastSeq: UInt64, finished: Bool)
        /// Nothing within the wait: a heartbeat comment.
        case heartbeat
        /// Ended and forgotten, or never known: close.
        case closed
    }

    private struct Event {
        var seq: UInt64
        var frame: [UInt8]
    }

    private final class Share {
        let secretIndex: Int
        var events: [Event] = []
        var first = 0
        var bytes = 0
        var lastSeq: UInt64 = 0
        /// When the relay ends the share itself if nothing more comes (relay clock, Unix seconds).
        var deadline: Int64
        var endedAt: Int64?
        /// The seq the relay began this share at when it was not 1 (it restarted mid-share): seqs
        /// below it are taken when they come, in any order (the device sends its trail again).
        var missingBefore: UInt64?
        /// The newest heartbeat (`alive`) as its SSE frame, its post's timestamp, and a counter of
        /// heartbeats taken so that each viewer gets each one once.
        var alive: [UInt8]?
        var aliveTimestamp = Int64.min
        var aliveVersion: UInt64 = 0
        let condition: UnsafeMutablePointer<pthread_cond_t>

        init(secretIndex: Int, deadline: Int64) {
            self.secretIndex = secretIndex
            self.deadline = deadline
            condition = .allocate(capacity: 1)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(condition, &attributes)
            pthread_condattr_destroy(&attributes)
        }

        deinit {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }

        var count: Int { events.count - first }

        func dropOldest() {
            bytes -= events[first].frame.count
            events[first].frame = []
            first += 1
            if first > 1024 && first * 2 > events.count {
                events.removeFirst(first)
                first = 0
            }
        }
    }

    private struct Bucket {
        var tokens: Double
        var at: Int64
    }

    package let limits: RelayLimits
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var shares: [String: Share] = [:]
    /// Ids of shares ended and dropped: when they were dropped.
    private var gone: [String: Int64] = [:]
    private var liveBytes = 0
    private var buckets: [String: Bucket] = [:]
    private var closing = false

    package init(limits: RelayLimits = RelayLimits()) {
        self.limits = limits
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Takes one authenticated post (`signer`: the index of the secret that signed it).
    package func accept(_ post: RelayPost, signer: Int, now: Int64) -> PostResult {
        locked {
            if gone[post.shareID] != nil { return .gone }
            if post.kind == .alive { return acceptAlive(post, signer: signer, now: now) }
            let share: Share
            if let known = shares[post.shareID] {
                guard known.secretIndex == signer else { return .forbidden }
                if known.endedAt != nil { return .gone }
                guard post.seq > known.lastSeq else { return fillIn(post, known) }
                share = known
            } else {
                guard shares.count < limits.shares else { return .full }
                share = Share(secretIndex: signer, deadline: now)
                if post.seq > 1 && post.kind == .update { share.missingBefore = post.seq }
                shares[post.shareID] = share
            }
            let frame = Self.frame(seq: post.seq, kind: post.kind, body: post.body)
            if post.kind == .update && liveBytes + frame.count > limits.totalBytes {
                if share.count == 0 { shares[post.shareID] = nil }
                return .full
            }
            share.lastSeq = post.seq
            share.deadline = deadline(of: post, now: now)
            switch post.kind {
            case .update:
                share.events.append(Event(seq: post.seq, frame: frame))
                share.bytes += frame.count
                liveBytes += frame.count
                while share.count > limits.eventsPerShare || share.bytes > limits.bytesPerShare {
                    let before = share.bytes
                    share.dropOldest()
                    liveBytes -= before - share.bytes
                }
            case .end:
                end(share, at: now, final: Event(seq: post.seq, frame: frame))
            case .alive:
                break
            }
            pthread_cond_broadcast(share.condition)
            return share.missingBefore == post.seq ? .storedMissingTrail : .stored
        }
    }

    /// An update below the seq a share began at here (the trail sent again after a restart): put in
    /// its place, once, within the share's bounds; anything else below the last seq is a duplicate.
    private func fillIn(_ post: RelayPost, _ share: Share) -> PostResult {
        guard let missing = share.missingBefore, post.kind == .update, post.seq < missing else { return .duplicate }
        var low = share.first, high = share.events.count
        while low < high {
            let middle = (low + high) / 2
            if share.events[middle].seq < post.seq { low = middle + 1 } else { high = middle }
        }
        guard low == share.events.count || share.events[low].seq != post.seq else { return .duplicate }
        let frame = Self.frame(seq: post.seq, kind: .update, body: post.body)
        guard share.count < limits.eventsPerShare, share.bytes + frame.count <= limits.bytesPerShare,
              liveBytes + frame.count <= limits.totalBytes else { return .duplicate }
        share.events.insert(Event(seq: post.seq, frame: frame), at: low)
        share.bytes += frame.count
        liveBytes += frame.count
        return .stored
    }

    /// When the relay ends the share itself if its device posts nothing more: the device's expiry
    /// read against the device's own clock (a replay's shares run on the fixes' time), then on the
    /// relay's: the share's time left, and the grace after it.
    private func deadline(of post: RelayPost, now: Int64) -> Int64 {
        let (difference, overflow) = post.expiresAt.subtractingReportingOverflow(post.timestamp)
        let left = overflow ? (post.expiresAt > 0 ? 7 * 86_400 : 0) : min(max(0, difference), 7 * 86_400)
        return now + left + limits.expiryGraceSeconds
    }

    /// A heartbeat: kept (the newest by its timestamp only, outside the trail) and pushed to the
    /// viewers; it starts no share and keeps a silent share from being ended.
    private func acceptAlive(_ post: RelayPost, signer: Int, now: Int64) -> PostResult {
        guard let share = shares[post.shareID] else { return .unknownShare }
        guard share.secretIndex == signer else { return .forbidden }
        if share.endedAt != nil { return .gone }
        guard post.timestamp > share.aliveTimestamp else { return .duplicate }
        // One per share, at most a body's size: outside the share's and the relay's byte bounds.
        share.alive = Self.frame(seq: LinkSealing.aliveSeq, kind: .alive, body: post.body)
        share.aliveTimestamp = post.timestamp
        share.aliveVersion += 1
        share.deadline = deadline(of: post, now: now)
        pthread_cond_broadcast(share.condition)
        return .stored
    }

    /// Drops a share's trail but its last position, keeps `final` (the end), wakes its viewers.
    private func end(_ share: Share, at now: Int64, final: Event) {
        let last = share.count > 0 ? share.events[share.events.count - 1] : nil
        liveBytes -= share.bytes
        share.alive = nil
        share.events = (last.map { [$0] } ?? []) + [final]
        share.first = 0
        share.bytes = share.events.reduce(0) { $0 + $1.frame.count }
        liveBytes += share.bytes
        share.lastSeq = max(share.lastSeq, final.seq)
        share.endedAt = now
    }

    /// The page a share's id shows.
    package func page(_ id: String) -> PageState {
        locked {
            if let share = shares[id] { return share.endedAt == nil ? .live : .ended }
            return gone[id] != nil ? .gone : .unknown
        }
    }

    /// The frames after `seq` for a viewer of `id`, waiting up to `waitSeconds` for one when there
    /// is none yet.
    package func next(_ id: String, after seq: UInt64, waitSeconds: Int) -> Next {
        var alive: UInt64 = 0
        return next(id, after: seq, alive: &alive, waitSeconds: waitSeconds)
    }

    /// `next`, with the newest heartbeat after the frames when it is newer than the viewer's
    /// `alive` (a counter the store advances; 0 for a new viewer).
    package func next(_ id: String, after seq: UInt64, alive: inout UInt64, waitSeconds: Int) -> Next {
        locked {
            var deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            deadline.tv_sec += waitSeconds
            while true {
                guard !closing, let share = shares[id] else { return .closed }
                let newAlive = share.aliveVersion > alive && share.alive != nil
                if share.lastSeq > seq || share.endedAt != nil || newAlive {
                    var frames: [UInt8] = []
                    var last = seq
                    for index in share.first..<share.events.count where share.events[index].seq > seq {
                        frames += share.events[index].frame
                        last = share.events[index].seq
                    }
                    if newAlive, let frame = share.alive {
                        frames += frame
                        alive = share.aliveVersion
                    }
                    if share.endedAt != nil { return .frames(frames, lastSeq: last, finished: true) }
                    if !frames.isEmpty { return .frames(frames, lastSeq: last, finished: false) }
                }
                if pthread_cond_timedwait(share.condition, mutex, &deadline) == ETIMEDOUT { return .heartbeat }
            }
        }
    }

    /// Ends shares past their expiry and grace, counted from their last post (an `end` without
    /// data: the device went silent),
    /// turns ended shares past their retention into gone ids, forgets old gone ids and idle
    /// throttle buckets. Run every few seconds.
    package func sweep(now: Int64) {
        locked {
            for (id, share) in shares {
                if let endedAt = share.endedAt {
                    if now - endedAt >= limits.endedRetentionSeconds {
                        liveBytes -= share.bytes
                        shares[id] = nil
                        gone[id] = now
                        pthread_cond_broadcast(share.condition)
                    }
                } else if now > share.deadline {
                    let seq = share.lastSeq == .max ? share.lastSeq : share.lastSeq + 1
                    end(share, at: now, final: Event(seq: seq, frame: Self.frame(seq: seq, kind: .end, body: [])))
                    pthread_cond_broadcast(share.condition)
                }
            }
            gone = gone.filter { now - $0.value < limits.goneRetentionSeconds }
            if gone.count > limits.goneIDs {
                for (id, _) in gone.sorted(by: { $0.value < $1.value }).prefix(gone.count - limits.goneIDs) { gone[id] = nil }
            }
            buckets = buckets.filter { now - $0.value.at < 600 }
        }
    }

    /// Whether `address` may be told about one more unknown id now (a token bucket per address):
    /// false means 429, so that ids cannot be guessed at speed.
    package func mayAskUnknown(address: String, now: Int64) -> Bool {
        locked {
            var bucket = buckets[address] ?? Bucket(tokens: Double(limits.unknownBurst), at: now)
            bucket.tokens = min(Double(limits.unknownBurst), bucket.tokens + Double(now - bucket.at) * Double(limits.unknownPerMinute) / 60)
            bucket.at = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            if buckets.count < 100_000 || buckets[address] != nil { buckets[address] = bucket }
            return allowed
        }
    }

    /// Wakes every waiting viewer to close: the relay is stopping.
    package func close() {
        locked {
            closing = true
            for share in shares.values { pthread_cond_broadcast(share.condition) }
        }
    }

    /// Live shares, their events and bytes (for tests and the log).
    package var totals: (shares: Int, events: Int, bytes: Int, gone: Int) {
        locked { (shares.count, shares.values.reduce(0) { $0 + $1.count }, liveBytes, gone.count) }
    }

    /// One SSE event: `id: SEQ`, `event: update|end`, `data: <base64url of the sealed event>`; a
    /// heartbeat has no `id:` (it is no place in the trail: a reconnecting viewer's
    /// `Last-Event-ID` stays its last event's).
    package static func frame(seq: UInt64, kind: RelayPost.Kind, body: [UInt8]) -> [UInt8] {
        let id = kind == .alive ? "" : "id: \(seq)\n"
        return Array("\(id)event: \(kind.rawValue)\ndata: \(Base64URL.encode(body))\n\n".utf8)
    }
}
