import LiveLocation
import NMEA
import SystemIO

/// The fixes of a replayed log, read in 64 KiB blocks as they are consumed (memory stays flat
/// however long the log), each one released at its time on the replay's pace.
public struct ReplayFixes: AsyncSequence, Sendable {
    let source: NMEAReplaySource

    public func makeAsyncIterator() -> Iterator {
        Iterator(source: source)
    }

    public struct Iterator: AsyncIteratorProtocol {
        private let source: NMEAReplaySource
        private var reader: LogReader?
        private var pending: [Fix] = []
        private var pendingIndex = 0
        /// Added to the log's times: grows by one pass (plus a gap) every loop.
        private var timeShift: Duration = .zero
        /// The last fix's time in the log (unshifted): where a pass ends.
        private var lastLogTime: Timestamp?
        private var pace: Pace

        init(source: NMEAReplaySource) {
            self.source = source
            self.pace = Pace(speed: source.speed, logStart: source.firstFixTime)
        }

        /// The next fix at its time; nil at the end of the log (or when cancelled).
        /// - Throws: `SystemError` when reading fails, `CancellationError` while waiting.
        public mutating func next() async throws -> Fix? {
            try await next(isolation: nil)
        }

        /// `next()`, run on the caller's actor: a broadcaster pumping a replay as fast as possible
        /// takes each fix without a task switch.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Fix? {
            while pendingIndex == pending.count {
                if Task.isCancelled { return nil }
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
                if reader == nil { reader = try LogReader(path: source.path) }
                let more = try reader!.readFixes(into: &pending)
                if !more {
                    guard source.loop else {
                        reader = nil
                        return nil
                    }
                    try reader!.rewind()
                    timeShift += ((lastLogTime ?? source.firstFixTime) - source.firstFixTime) + source.loopGap
                }
            }
            var fix = pending[pendingIndex]
            pendingIndex += 1
            lastLogTime = fix.time
            fix.time = fix.time + timeShift
            try await pace.wait(until: fix.time)
            source.clock.advance(to: fix.time)
            return fix
        }
    }
}

/// Maps log time to real time: the log's first fix is "now", and log time runs `speed` times faster.
struct Pace {
    let speed: Double
    let logStart: Timestamp
    private var realStart: ContinuousClock.Instant?

    init(speed: Double, logStart: Timestamp) {
        self.speed = speed
        self.logStart = logStart
    }

    mutating func wait(until logTime: Timestamp, isolation actor: isolated (any Actor)? = #isolation) async throws {
        guard speed > 0 else { return }
        let clock = ContinuousClock()
        guard let realStart else {
            realStart = clock.now
            return
        }
        let logElapsed = Double((logTime - logStart).wholeMilliseconds) / 1000
        let target = realStart + .milliseconds(Int64(logElapsed / speed * 1000))
        guard target > clock.now else { return }
        // Whoever waits for the previous fix's event (the share's writer, on the same thread) runs
        // first: arming the timer before it would add its cost to that event's latency.
        await Task.yield()
        try await clock.sleep(until: target)
    }
}

/// An open log and its decoder: one block read yields the fixes completed in it.
final class LogReader {
    private let descriptor: FileDescriptor
    private var decoder = NMEADecoder()
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private var atEnd = false

    init(path: String) throws {
        descriptor = try FileDescriptor.openForReading(path)
    }

    deinit {
        buffer.deallocate()
        descriptor.close()
    }

    /// Appends the fixes of the next block(s) until at least one is found; false at the end of the log.
    func readFixes(into fixes: inout [Fix]) throws -> Bool {
        while fixes.isEmpty {
            if atEnd { return false }
            let count = try descriptor.read(into: buffer)
            if count == 0 {
                decoder.finish { fixes.append($0) }
                atEnd = true
            } else {
                decoder.feed(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { fixes.append($0) }
            }
        }
        return true
    }

    func rewind() throws {
        try descriptor.rewind()
        decoder = NMEADecoder()
        atEnd = false
    }
}
