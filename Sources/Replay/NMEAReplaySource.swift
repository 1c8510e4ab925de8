import LiveLocation
import NMEA
import SystemIO

/// Replays an NMEA 0183 log as a location source, paced by the log's own timestamps.
///
/// The log's timeline is the share's clock (`clock`): before each fix is yielded the clock moves to
/// the fix's time, so a share started on a replay starts, updates and expires in log time whatever
/// the `speed`. With `loop`, the log starts again at its end, its times shifted to keep the timeline
/// moving forward.
package struct NMEAReplaySource: LocationSource {
    /// The log's timeline; it starts at the log's first fix.
    package let clock: ManualClock
    package let path: String
    /// How many times faster than real time; 0 replays as fast as possible.
    package let speed: Double
    package let loop: Bool
    /// Time of the log's first fix.
    let firstFixTime: Timestamp
    /// The time between the first two fixes: the gap left between one pass and the next in a loop.
    let loopGap: Duration

    /// Opens `path` (`-` is not supported: a replay is a file) and reads up to its second fix to
    /// find where its timeline starts.
    /// - Throws: `ReplayError` for a bad speed, a file without a single fix, or `SystemError` when
    ///   the file cannot be read.
    package init(path: String, speed: Double = 1, loop: Bool = false) throws {
        guard speed.isFinite, speed >= 0 else { throw ReplayError.invalidSpeed(speed) }
        let reader = try LogReader(path: path)
        var times: [Timestamp] = []
        var block: [Fix] = []
        while times.count < 2 {
            block.removeAll(keepingCapacity: true)
            guard try reader.readFixes(into: &block) else { break }
            times += block.prefix(2 - times.count).map(\.time)
        }
        let first = times.first
        let second = times.dropFirst().first
        guard let first else { throw ReplayError.noFixes(path: path) }
        self.path = path
        self.speed = speed
        self.loop = loop
        self.firstFixTime = first
        self.loopGap = second.map { $0 - first } ?? .seconds(1)
        self.clock = ManualClock(now: first)
    }

    package func fixes() -> ReplayFixes {
        ReplayFixes(source: self)
    }
}

/// Why a replay cannot start.
package enum ReplayError: Error, CustomStringConvertible, Equatable {
    case invalidSpeed(Double)
    case noFixes(path: String)

    package var description: String {
        switch self {
        case .invalidSpeed(let speed): "invalid replay speed \(speed): expected a number >= 0 (0 = as fast as possible)"
        case .noFixes(let path): "\(path): no fix with a position and a date in the log"
        }
    }
}
