import LiveLocation

/// A share's events and snapshots as the journal's and the pipeline's tests write them: a share
/// started at `start` for an hour, its update `seq` a second apart and a little further north each
/// time. A suite that conforms calls them as its own (`update(id, 1)`, `Self.snapshot(id, seq: 1)`).
public protocol ShareSamples {}

extension ShareSamples {
    /// 2026-11-30 08:53:20 UTC, the start of every sample share.
    public static var start: Timestamp { Timestamp(millisecondsSince1970: 1_796_000_000_000) }
    public var start: Timestamp { Self.start }

    /// Update `seq` of share `id`; an inactive one (the final update) ends at its own time.
    public static func update(_ id: ShareID, _ seq: Int, active: Bool = true) -> ShareEvent {
        .updated(shareID: id, seq: seq, location: LiveLocation(
            latitude: 48.1 + Double(seq) * 1e-4, longitude: 11.5, lastUpdateAt: start + .seconds(seq), startedAt: start,
            expiresAt: active ? start + .seconds(3600) : start + .seconds(seq), isActive: active, accuracyMeters: 3.5))
    }

    public func update(_ id: ShareID, _ seq: Int, active: Bool = true) -> ShareEvent { Self.update(id, seq, active: active) }

    /// Share `id` as the journal keeps it after its update `seq`.
    public static func snapshot(_ id: ShareID, seq: Int) -> ShareSnapshot {
        ShareSnapshot(id: id, startedAt: start, expiresAt: start + .seconds(3600), seq: seq, updatesSent: seq)
    }

    public func snapshot(_ id: ShareID, seq: Int) -> ShareSnapshot { Self.snapshot(id, seq: seq) }
}
