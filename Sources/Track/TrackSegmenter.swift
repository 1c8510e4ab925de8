import LiveLocation

/// Splits a sequence of fixes into continuous segments: a new segment starts after a gap, i.e. when
/// a fix comes more than `maximumGap` after the one before it, or earlier than it (a clock or log
/// that went back). Constant memory: it keeps the last fix's time only.
package struct TrackSegmenter: Sendable {
    /// The longest time between consecutive fixes of one segment.
    package var maximumGap: Duration
    private var lastTime: Timestamp?
    /// The current segment's number, from 1; 0 before the first fix.
    package private(set) var segment = 0

    /// The default gap: 30 s without a fix (a tunnel, a receiver that lost the sky, a daemon that
    /// was stopped) starts a new segment; a receiver reporting every 1–10 s stays in one.
    package static let defaultMaximumGap: Duration = .seconds(30)

    package init(maximumGap: Duration = TrackSegmenter.defaultMaximumGap) {
        self.maximumGap = maximumGap
    }

    /// Takes the next fix's time; true when it starts a new segment (the first fix does).
    package mutating func startsSegment(at time: Timestamp) -> Bool {
        defer { lastTime = time }
        guard let lastTime, time >= lastTime, time - lastTime <= maximumGap else {
            segment += 1
            return true
        }
        return false
    }
}
