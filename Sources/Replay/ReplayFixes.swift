import LiveLocation
import NMEA
import SystemIO

/// The fixes of a replayed log, read in 64 KiB blocks as they are consumed (memory stays flat
/// however long the log), each one released at its time on the replay's pace.
package struct ReplayFixes: AsyncSequence, Sendable {
    let source: NMEAReplaySource

    package func makeAsyncIterator() -> Iterator {
        Iterator(source: source)
    }

    package struct Iterator: FixBatchIterator {
        private let source: NMEAReplaySource
        private var reader: LogReader?
        private var pending: [Fix] = []
        /// The next block, decoding on another thread while this one's fixes are handed out: the
        /// decoder and the share's pipeline run in parallel on a log replayed as fast as possible.
        private var nextBlock: Task<LogReader.Block, any Error>?
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

        private static func read(_ reader: LogReader) -> Task<LogReader.Block, any Error> {
            Task(executorPreference: globalConcurrentExecutor) { try reader.readBlock() }
        }

        /// The next fix at its time; nil at the end of the log (or when cancelled).
        /// - Throws: `SystemError` when reading fails, `CancellationError` while waiting.
        package mutating func next() async throws -> Fix? {
            try await next(isolation: nil)
        }

        /// `next()`, run on the caller's actor: a broadcaster pumping a replay as fast as possible
        /// takes each fix without a task switch.
        package mutating func next(isolation actor: isolated (any Actor)?) async throws -> Fix? {
            guard try await fill() else { return nil }
            return try await take()
        }

        /// `FixBatchIterator`: as fast as possible, every fix of the block in hand in one call; paced,
        /// one fix per call (each waits for its time).
        package mutating func nextFixes(isolation actor: isolated (any Actor)?, _ body: (Fix) -> Bool) async throws -> Bool {
            guard try await fill() else { return false }
            guard pace.speed == 0 else {
                _ = body(try await take())
                return true
            }
            repeat {
                let fix = nextInHand()
                source.clock.advance(to: fix.time)
                guard body(fix) else { break }
            } while pendingIndex < pending.count
            return true
        }

        /// The next fix of the block in hand (`fill` made sure there is one), at its time.
        private mutating func take(isolation actor: isolated (any Actor)? = #isolation) async throws -> Fix {
            let fix = nextInHand()
            if pace.speed > 0 { try await pace.wait(until: fix.time) }
            source.clock.advance(to: fix.time)
            return fix
        }

        /// Takes the next fix of the block in hand, its time moved by the loops so far (the clock is
        /// the caller's to advance, after any pacing).
        private mutating func nextInHand() -> Fix {
            var fix = pending[pendingIndex]
            pendingIndex += 1
            lastLogTime = fix.time
            fix.time = fix.time + timeShift
            return fix
        }

        /// Makes sure a fix is in hand, reading (and, with `loop`, rewinding) as needed; false at
        /// the end of the log or when cancelled.
        private mutating func fill(isolation actor: isolated (any Actor)? = #isolation) async throws -> Bool {
            while pendingIndex == pending.count {
                if Task.isCancelled { return false }
                if reader == nil { reader = try LogReader(path: source.path) }
                let block = try await (nextBlock ?? Self.read(reader!)).value
                nextBlock = nil
                pending = block.fixes
                pendingIndex = 0
                if block.more {
                    nextBlock = Self.read(reader!)
                } else {
                    guard source.loop else {
                        reader = nil
                        return false
                    }
                    try reader!.rewind()
                    timeShift += ((lastLogTime ?? source.firstFixTime) - source.firstFixTime) + source.loopGap
                }
            }
            return true
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
        guard let target = realTime(of: logTime), target > ContinuousClock.now else { return }
        // Whoever waits for the previous fix's event (the share's writer, on the same thread) runs
        // first: arming the timer before it would add its cost to that event's latency.
        await Task.yield()
        try await ContinuousClock().sleep(until: target)
    }

    /// When `logTime` is due in real time; nil when it is due now (as fast as possible, or the
    /// first fix, which starts the pace).
    mutating func realTime(of logTime: Timestamp) -> ContinuousClock.Instant? {
        guard speed > 0 else { return nil }
        guard let realStart else {
            realStart = ContinuousClock.now
            return nil
        }
        let logElapsed = Double((logTime - logStart).wholeMilliseconds) / 1000
        return realStart + (Duration(clampingSeconds: logElapsed / speed) ?? .zero)
    }
}

/// An open log and its decoder: one block read yields the fixes completed in it.
///
/// Sendable so that a block can be read on another thread; its users take turns (the replay
/// awaits each block read before it starts the next one, or rewinds).
final class LogReader: @unchecked Sendable {
    /// The fixes of one read (at least one unless the log ended), and whether more may follow.
    struct Block: Sendable {
        var fixes: [Fix]
        var more: Bool
    }

    private let descriptor: FileDescriptor
    private var decoder = NMEADecoder()
    private let buffer: UnsafeMutableRawBufferPointer
    private var atEnd = false

    init(path: String) throws {
        // Opened first: a throwing init runs no deinit, so nothing may be allocated before it throws.
        descriptor = try FileDescriptor.openForReading(path)
        buffer = .allocate(byteCount: 1 << 16, alignment: 16)
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

    func readBlock() throws -> Block {
        var fixes: [Fix] = []
        let more = try readFixes(into: &fixes)
        return Block(fixes: fixes, more: more)
    }

    func rewind() throws {
        try descriptor.rewind()
        decoder = NMEADecoder()
        atEnd = false
    }
}
