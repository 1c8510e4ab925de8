import LiveLocation
import SystemIO

extension Logger {
    /// One line for a correction of an active share's times.
    package func timesCorrected(_ correction: ShareTimesCorrection) {
        let sign = correction.by < .zero ? "-" : "+"
        let size = correction.by < .zero ? .zero - correction.by : correction.by
        let clock = switch correction.source {
        case .receiver: " (clock from GPS)"
        case .synchronizedSystemClock: " (clock from the synchronized system clock)"
        case .systemClock: " (clock from the unsynchronized system clock)"
        case nil: ""
        }
        let milliseconds = size.wholeMilliseconds
        let exact = "\(milliseconds / 1000).\(String(milliseconds % 1000 + 1000).dropFirst()) s"
        let glance = size >= .seconds(60) ? " (\(size.glanceText))" : ""
        notice("share \(correction.shareID): times moved \(sign)\(exact)\(glance) with the clock\(clock): "
               + "started \(correction.startedAt), until \(correction.expiresAt)")
    }
}
