/// A fix the active share accepted (sent as an update or throttled), with the share it belongs to:
/// what the journal keeps as the share's track. The true position, before any privacy filter.
public struct TrackedFix: Sendable, Equatable {
    public var shareID: ShareID
    public var fix: Fix

    public init(shareID: ShareID, fix: Fix) {
        self.shareID = shareID
        self.fix = fix
    }
}
