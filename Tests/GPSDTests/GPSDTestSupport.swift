import Foundation
import GPSD
import LiveLocation
import Locking
import TestSupport

/// The first `count` fixes of `fixes` (or up to the one `last` accepts), or fewer when `timeout`
/// passes first.
func firstFixes<S: AsyncSequence & Sendable>(
    _ fixes: S, count: Int, timeout: Duration, last: (@Sendable (Fix) -> Bool)? = nil
) async -> [Fix] where S.Element == Fix {
    await withTaskGroup(of: [Fix]?.self) { group in
        group.addTask {
            var collected: [Fix] = []
            do {
                for try await fix in fixes {
                    collected.append(fix)
                    if collected.count >= count || last?(fix) == true { break }
                }
            } catch {}
            return collected
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        var result: [Fix] = []
        while let next = await group.next() {
            if let fixes = next { result = fixes; break }
            group.cancelAll()  // timed out: the consumer returns what it has
        }
        group.cancelAll()
        return result
    }
}

/// A corpus log and its `.chk` (gpsd's regression output), when the corpus is present.
struct CorpusLog {
    let log: URL
    /// The `.chk` TPVs with mode 2 or 3, a time and a position: the first of each time, in order.
    let expected: [ExpectedTPV]

    init?(_ name: String) {
        guard let corpus = Paths.gpsdCorpus else { return nil }
        log = corpus.appendingPathComponent(name)
        guard let text = try? String(contentsOf: corpus.appendingPathComponent(name + ".chk"), encoding: .utf8)
        else { return nil }
        var seen = Set<Timestamp>()
        var expected: [ExpectedTPV] = []
        for line in text.split(whereSeparator: \.isNewline) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["class"] as? String == "TPV", let tpv = ExpectedTPV(object),
                  seen.insert(tpv.time).inserted else { continue }
            expected.append(tpv)
        }
        self.expected = expected
    }
}

struct ExpectedTPV {
    var time: Timestamp
    var mode: Int
    var lat: Double
    var lon: Double
    var altMSL: Double?
    var altHAE: Double?
    var speed: Double?
    var track: Double?

    init?(_ object: [String: Any]) {
        guard let mode = object["mode"] as? Int, mode >= 2, let text = object["time"] as? String,
              let time = Timestamp(iso8601: text), let lat = object["lat"] as? Double,
              let lon = object["lon"] as? Double else { return nil }
        self.time = time
        self.mode = mode
        self.lat = lat
        self.lon = lon
        altMSL = object["altMSL"] as? Double
        altHAE = object["altHAE"] as? Double
        speed = object["speed"] as? Double
        track = object["track"] as? Double
    }
}

/// How many TCP connections this process has open to 127.0.0.1:`port` (from /proc).
func openConnections(toPort port: UInt16) -> Int {
    let fdDirectory = "/proc/self/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: fdDirectory)) ?? []
    var inodes = Set<String>()
    for name in names {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(name)"),
           target.hasPrefix("socket:[") {
            inodes.insert(String(target.dropFirst(8).dropLast()))
        }
    }
    let remote = String(format: ":%04X", port)
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let text = procFileText(table) else { continue }
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
            guard fields.count > 9, fields[2].hasSuffix(remote), fields[3] == "01",
                  inodes.contains(String(fields[9])) else { continue }
            count += 1
        }
    }
    return count
}

/// Percentile `p` (0...100) of `values` (nearest rank).
func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// Consumes a source's fixes in the background, so that a test can wait for them in phases.
final class FixCollector: Sendable {
    private final class Received: Sendable {
        let fixes = Locked<[Fix]>([])
    }

    private let received = Received()
    private let task: Task<Void, Never>

    init<S: AsyncSequence & Sendable>(_ fixes: S) where S.Element == Fix {
        let received = self.received
        task = Task {
            do { for try await fix in fixes { received.fixes.withLock { $0.append(fix) } } } catch {}
        }
    }

    var fixes: [Fix] { received.fixes.withLock { $0 } }

    /// Waits (checking every 20 ms, up to `timeout`) until `count` fixes were received; returns them.
    @discardableResult
    func waitFor(count: Int, timeout: Duration) async -> [Fix] {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while fixes.count < count, clock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        return fixes
    }

    func cancel() { task.cancel() }
    deinit { task.cancel() }
}

/// Where `received` starts in `expected` when it is a contiguous run of it (compared by `key`),
/// or nil. gpsfake starts feeding ~1.4 s after launch whoever is connected, so on a loaded machine
/// a client may miss the first epochs; everything after must match exactly.
func startOfRun<T, K: Equatable>(_ received: [T], in expected: [T], key: (T) -> K) -> Int? {
    guard let first = received.first, let start = expected.firstIndex(where: { key($0) == key(first) }),
          start + received.count <= expected.count else { return nil }
    for (offset, item) in received.enumerated() where key(item) != key(expected[start + offset]) { return nil }
    return start
}
