/// An active share's start and expiry moved with its clock's UTC (a clock step, the first fix after
/// a boot without a real-time clock, a share taken over whose times were on a clock since
/// corrected): its length and seq stay. Each one is worth a log line.
public struct ShareTimesCorrection: Sendable, Equatable {
    public var shareID: ShareID
    /// How far the times moved (positive: later).
    public var by: Duration
    /// The share's times after the correction.
    public var startedAt: Timestamp
    public var expiresAt: Timestamp
    /// Where the clock's UTC comes from now; nil for a clock of its own timeline.
    public var source: ShareTimeBase.Source?

    public init(shareID: ShareID, by: Duration, startedAt: Timestamp, expiresAt: Timestamp, source: ShareTimeBase.Source?) {
        self.shareID = shareID
        self.by = by
        self.startedAt = startedAt
        self.expiresAt = expiresAt
        self.source = source
    }
}
