// webhook-bench: the journal half of bench/webhook-backlog.sh.
//
//   webhook-bench fill  --state-dir DIR --url URL --secret-file FILE --events N
//       journals N events (shares of 100 updates + final update + ended), one committed batch each,
//       without delivering; prints the commit rate and the journal's disk use per event.
//   webhook-bench drain --state-dir DIR --url URL --secret-file FILE
//       delivers the webhook's queue through its DestinationRunner until it is empty; prints the
//       drain rate and the CPU time per delivered event.
#if canImport(Glibc)
import Glibc
#endif
import Delivery
import Journal
import Pipeline
import Webhook
import LiveLocation
import SystemIO

func option(_ name: String) -> String? {
    let words = CommandLine.arguments
    guard let index = words.firstIndex(of: name), index + 1 < words.count else { return nil }
    return words[index + 1]
}

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : 0
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func events(count: Int) -> [ShareEvent] {
    var result: [ShareEvent] = []
    let start = WallClock().now
    while result.count < count {
        let id = ShareID.random()
        for seq in 1...102 where result.count < count {
            let isFinal = seq >= 101
            let location = LiveLocation(
                latitude: 48.85 + Double(seq) * 1e-5, longitude: 2.35 + Double(seq) * 1e-5,
                lastUpdateAt: start + .seconds(seq), startedAt: start, expiresAt: start + .seconds(isFinal ? seq : 3600),
                isActive: !isFinal, accuracyMeters: 4.2, altitudeMeters: 35.1, speedMetersPerSecond: 1.4,
                courseDegreesTrue: 87.5)
            result.append(seq == 102 ? .ended(shareID: id, seq: seq, reason: .expired)
                                     : .updated(shareID: id, seq: seq, location: location))
        }
    }
    return result
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let mode = CommandLine.arguments.dropFirst().first ?? ""
guard ["fill", "drain"].contains(mode), let directory = option("--state-dir"), let url = option("--url"),
      let secretFile = option("--secret-file")
else {
    FileDescriptor.standardError.writeAllIgnoringErrors("usage: webhook-bench fill|drain --state-dir DIR --url URL --secret-file FILE [--events N]\n")
    exit(64)
}

extension FileDescriptor {
    func writeAllIgnoringErrors(_ text: String) { try? writeAll(Array(text.utf8)) }
}

do {
    let configuration = WebhookConfiguration(
        url: url, secrets: try WebhookSecret.load(fromFile: secretFile),
        maxEvents: 1_000_000, maxBytes: 1 << 30, retry: RetryPolicy(base: .milliseconds(50), cap: .seconds(1)))
    let log = Logger(handler: StandardErrorLogHandler(program: "webhook-bench"))
    let destination = try WebhookDestination(configuration: configuration)
    // The composition root, as livelocd's: a journal with the webhook's queue and its runner (the
    // broadcaster and dispatcher stay idle: `fill` commits the events straight into the journal).
    var plan = SharePipeline.Plan(clock: ManualClock(now: Timestamp(millisecondsSince1970: 0)), log: log)
    plan.destinations = [destination]
    plan.journal = .init(directory: directory)
    plan.retry = configuration.retry
    let pipeline = try await SharePipeline(plan)
    let journal = pipeline.journal!
    let path = journal.path
    let clock = ContinuousClock()
    if mode == "fill" {
        let count = Int(option("--events") ?? "") ?? 10_000
        let all = events(count: count)
        let started = clock.now
        for (index, event) in all.enumerated() {
            try await journal.commit(ShareBatch(events: [event], share: nil, through: UInt64(index + 1)))
        }
        let elapsed = seconds(clock.now - started)
        let status = await journal.queueStatus(destination.identity)!
        let disk = fileSize(path) + fileSize(path + "-wal")
        print("journaled \(status.pending) events in \(elapsed) s: \(Int(Double(count) / elapsed)) events/s (one fsynced commit each)")
        print("journal: \(disk) bytes on disk (db \(fileSize(path)) + wal \(fileSize(path + "-wal"))), "
              + "\(disk / max(status.pending, 1)) bytes/event; JSON \(status.pendingBytes / max(status.pending, 1)) bytes/event")
    } else {
        let pending = await journal.queueStatus(destination.identity)!.pending
        let runner = pipeline.runners[0]
        let started = clock.now
        let cpuBefore = cpuSeconds()
        let loop = Task { try await runner.run() }
        await runner.drained()
        let elapsed = seconds(clock.now - started)
        let cpu = cpuSeconds() - cpuBefore
        loop.cancel()
        try await loop.value
        let status = await runner.status()
        print("drained \(status.acknowledged) of \(pending) events in \(elapsed) s: \(Int(Double(status.acknowledged) / elapsed)) events/s, "
              + "\(status.failedAttempts) failed attempts; CPU \(Int(cpu * 1e6 / Double(max(status.acknowledged, 1)))) µs per delivered event")
    }
    await journal.close()
} catch {
    FileDescriptor.standardError.writeAllIgnoringErrors("webhook-bench: \(error)\n")
    exit(1)
}
