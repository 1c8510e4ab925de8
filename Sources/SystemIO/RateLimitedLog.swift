import Locking

/// Keeps a line that can repeat without end (a refused caller, a full disk, a closed stdout) from
/// flooding the log: the first line of a kind is written at once; the others within `window` are
/// only counted, and the window's end writes one summary line with the count, e.g.
/// `refused 9,812 more connections from uid 1001 in the last 60 s`. A kind that stays quiet for a
/// whole window is forgotten, so its next line is written at once again.
///
/// One instance serves a whole process (the `Logger`'s, behind `Logger.limited`); kinds are told
/// apart by a key such as `refused uid 1001`. Each line keeps its level, and a kind's summary line
/// has the level of the lines it counts. At most `maximumKinds` kinds are tracked at once; lines of
/// further kinds are counted together and summarised as `N more lines suppressed`, at the most
/// severe level among them. A kind may have a window of its own (a share's start, written as long
/// as shares start no faster than about one a second: a window of 1 s).
package final class RateLimitedLog: Sendable {
    private struct Kind {
        var suppressed = 0
        var level: LogLevel
        var summary: @Sendable (Int, Duration) -> String
    }

    private struct State {
        var kinds: [String: Kind] = [:]
        var overflow = 0
        var overflowLevel = LogLevel.debug
        var overflowScheduled = false
    }

    private let state = Locked(State())
    private let write: @Sendable (LogLevel, String) -> Void
    /// How long a kind's later lines are only counted after one was written.
    package let window: Duration
    package let maximumKinds: Int

    /// - Parameter write: writes one line at its level (a `LogHandler`'s `write`).
    package init(window: Duration = .seconds(60), maximumKinds: Int = 256, write: @escaping @Sendable (LogLevel, String) -> Void) {
        self.window = window
        self.maximumKinds = maximumKinds
        self.write = write
    }

    /// Writes `message` at `level` now when no line of kind `key` was written within the window
    /// (`window`, else the limiter's); otherwise counts it (`message` is then not evaluated).
    /// `summary(count, window)` words the window's summary line for `count` lines not written.
    package func callAsFunction(_ level: LogLevel, _ key: String, window: Duration? = nil, _ message: @autoclosure () -> String,
                                summary: @escaping @Sendable (_ count: Int, _ window: Duration) -> String) {
        enum Action { case write, count, scheduleOverflow }
        let action = state.withLock { state -> Action in
            if state.kinds[key] == nil {
                guard state.kinds.count < maximumKinds else {
                    state.overflow += 1
                    state.overflowLevel = max(state.overflowLevel, level)
                    if state.overflowScheduled { return .count }
                    state.overflowScheduled = true
                    return .scheduleOverflow
                }
                // A window starts with this line; its end forgets the kind (or summarises it).
                state.kinds[key] = Kind(level: level, summary: summary)
                return .write
            }
            state.kinds[key]!.suppressed += 1
            state.kinds[key]!.level = max(state.kinds[key]!.level, level)
            state.kinds[key]!.summary = summary
            return .count
        }
        switch action {
        case .write:
            write(level, message())
            scheduleFlush(key, after: window ?? self.window)
        case .count:
            break
        case .scheduleOverflow:
            DeadlineTimer.schedule(after: self.window) { [self] in
                let (count, level) = state.withLock { state -> (Int, LogLevel) in
                    defer { state.overflow = 0; state.overflowLevel = .debug; state.overflowScheduled = false }
                    return (state.overflow, state.overflowLevel)
                }
                if count > 0 { write(level, "\(count.thousandsSeparated) more lines suppressed in the last \(self.window.shortText)") }
            }
        }
    }

    /// How many kinds are in a window now (a kind is forgotten at the end of a window without lines).
    package var trackedKinds: Int { state.withLock { $0.kinds.count } }

    /// At the end of `key`'s window: a summary if lines were counted (and a new window for the
    /// kind), else the kind is forgotten.
    private func scheduleFlush(_ key: String, after window: Duration) {
        DeadlineTimer.schedule(after: window) { [self] in
            let line = state.withLock { state -> (LogLevel, String)? in
                guard let kind = state.kinds[key] else { return nil }
                guard kind.suppressed > 0 else {
                    state.kinds[key] = nil
                    return nil
                }
                state.kinds[key]!.suppressed = 0
                return (kind.level, kind.summary(kind.suppressed, window))
            }
            guard let (level, text) = line else { return }
            write(level, text)
            scheduleFlush(key, after: window)
        }
    }
}

extension BinaryInteger {
    /// The number with a comma between groups of three digits: `9,812`, `1,048,576`.
    package var thousandsSeparated: String {
        let digits = String(self.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (self < 0 ? "-" : "") + result
    }
}
