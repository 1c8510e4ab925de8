#if canImport(Glibc)
import Glibc
#endif
import Locking
import SystemIO
import Testing
import TestSupport

/// The one logging value: levels, the cost of a line below the level, the one rate limit, and the
/// journal's priority prefixes.
@Suite struct LoggerTests {
    /// Counts how often a message was made.
    final class Evaluations: Sendable {
        private let count = Locked(0)
        var value: Int { count.withLock { $0 } }
        func message(_ text: String) -> String {
            count.withLock { $0 += 1 }
            return text
        }
    }

    @Test func aLoggerWritesItsLevelAndTheMoreSevereOnesEachWithItsLevel() {
        let lines = LogLines()
        var log = lines.logger
        log.level = .warning
        log.debug("d")
        log.info("i")
        log.notice("n")
        log.warning("w")
        log.error("e")
        #expect(lines.entries.map(\.level) == [.warning, .error])
        #expect(lines.all == ["w", "e"])
        log.level = .debug
        log.debug("d2")
        log.log(.notice, "n2")
        #expect(lines.entries.suffix(2).map(\.level) == [.debug, .notice])
    }

    @Test func aMessageBelowTheLevelIsNeverMade() {
        let lines = LogLines()
        var log = lines.logger
        log.level = .notice
        let made = Evaluations()
        log.debug(made.message("per-fix detail"))
        log.info(made.message("a state change"))
        log.limited(.info, key: "k", made.message("a repeated line")) { count, _ in "\(count) more" }
        #expect(made.value == 0)
        log.notice(made.message("a share started"))
        #expect(made.value == 1)
        #expect(lines.all == ["a share started"])
    }

    @Test func limitedLinesKeepTheirLevelAndOneLimiterServesEveryCopyOfALogger() async {
        let lines = LogLines(rateWindow: .milliseconds(200))
        let log = lines.logger
        var copy = log
        copy.level = .info
        let made = Evaluations()
        for number in 0..<5 {
            log.limited(.warning, key: "refused uid 1001", made.message("refused \(number)")) { count, window in
                "refused \(count) more in the last \(window.shortText)"
            }
            // The same kind through a copy: the same limiter, so only counted.
            copy.limited(.warning, key: "refused uid 1001", made.message("refused by the copy \(number)")) { count, window in
                "refused \(count) more in the last \(window.shortText)"
            }
        }
        log.limited(.error, key: "accept", "accept failed") { count, _ in "\(count) more accept failures" }
        // The first of each kind at once, and a counted line is not even made.
        #expect(made.value == 1)
        #expect(lines.entries.map(\.level) == [.warning, .error])
        #expect(lines.all == ["refused 0", "accept failed"])
        let written = await lines.waitFor(count: 3, within: .seconds(5))
        #expect(written.last == "refused 9 more in the last 200 ms")
        #expect(lines.level(of: "refused 9 more") == .warning)
    }

    @Test func levelsAreNamedOrderedAndNumberedAsSyslog() {
        #expect(LogLevel.allCases.map(\.description) == ["error", "warning", "notice", "info", "debug"])
        #expect(LogLevel.allCases.map(\.rawValue) == [3, 4, 5, 6, 7])
        for level in LogLevel.allCases { #expect(LogLevel(name: level.description) == level) }
        #expect(LogLevel(name: "bogus") == nil)
        #expect(LogLevel(name: "WARNING") == nil)
        #expect(LogLevel.debug < .info && LogLevel.info < .notice && LogLevel.notice < .warning && LogLevel.warning < .error)
    }

    @Test func journalStreamNamesStandardErrorOnlyWithItsOwnDeviceAndInode() {
        var status = stat()
        #expect(fstat(2, &status) == 0)
        let own = "\(UInt64(status.st_dev)):\(UInt64(status.st_ino))"
        #expect(StandardErrorLogHandler.isStandardError(own))
        #expect(StandardErrorLogHandler(program: "t", journalStream: own).prefixesPriority)
        // Inherited by a child whose standard error went elsewhere: another inode, no prefixes.
        #expect(!StandardErrorLogHandler.isStandardError("\(UInt64(status.st_dev)):\(UInt64(status.st_ino) &+ 1)"))
        #expect(!StandardErrorLogHandler(program: "t", journalStream: nil).prefixesPriority)
        for malformed in ["", "1", "1:2:3", "a:b", ":", "\(UInt64(status.st_dev)):", "\(UInt64(status.st_dev))::\(UInt64(status.st_ino))",
                          " \(own)", "+\(own)"] {
            #expect(!StandardErrorLogHandler.isStandardError(malformed), "\(malformed)")
        }
    }
}
