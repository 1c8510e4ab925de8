// webhook-bench: the outbox half of bench/webhook-backlog.sh.
//
//   webhook-bench fill  --outbox PATH --url URL --secret-file FILE --events N
//       queues N events (shares of 100 updates + final update + ended) without delivering; prints
//       the enqueue rate and the outbox's disk use (db + wal) per event.
//   webhook-bench drain --outbox PATH --url URL --secret-file FILE
//       delivers the outbox until it is empty; prints the drain rate.
#if canImport(Glibc)
import Glibc
#endif
import Delivery
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

let mode = CommandLine.arguments.dropFirst().first ?? ""
guard ["fill", "drain"].contains(mode), let outbox = option("--outbox"), let url = option("--url"),
      let secretFile = option("--secret-file")
else {
    FileDescriptor.standardError.writeAllIgnoringErrors("usage: webhook-bench fill|drain --outbox PATH --url URL --secret-file FILE [--events N]\n")
    exit(64)
}

extension FileDescriptor {
    func writeAllIgnoringErrors(_ text: String) { try? writeAll(Array(text.utf8)) }
}

do {
    let configuration = WebhookConfiguration(
        url: url, secrets: try WebhookSecret.load(fromFile: secretFile), outboxPath: outbox,
        maxEvents: 1_000_000, maxBytes: 1 << 30, retry: RetryPolicy(base: .milliseconds(50), cap: .seconds(1)))
    let sink = try WebhookSink(configuration: configuration, log: { FileDescriptor.standardError.writeAllIgnoringErrors($0 + "\n") })
    let clock = ContinuousClock()
    if mode == "fill" {
        let count = Int(option("--events") ?? "") ?? 10_000
        let batch = events(count: count)
        let started = clock.now
        for event in batch { try await sink.deliver(event) }
        let elapsed = seconds(clock.now - started)
        let status = await sink.status
        let disk = fileSize(outbox) + fileSize(outbox + "-wal") + fileSize(outbox + "-shm")
        print("queued \(status.pending) events in \(elapsed) s: \(Int(Double(count) / elapsed)) events/s (one fsynced commit each)")
        print("outbox: \(disk) bytes on disk (db \(fileSize(outbox)) + wal \(fileSize(outbox + "-wal"))), "
              + "\(disk / max(status.pending, 1)) bytes/event; bodies \(status.pendingBytes / max(status.pending, 1)) bytes/event")
    } else {
        let pending = await sink.status.pending
        let started = clock.now
        let loop = Task { try await sink.run() }
        await sink.drained()
        let elapsed = seconds(clock.now - started)
        loop.cancel()
        try await loop.value
        let status = await sink.status
        print("drained \(status.delivered) of \(pending) events in \(elapsed) s: \(Int(Double(status.delivered) / elapsed)) events/s, "
              + "\(status.failedAttempts) failed attempts")
    }
} catch {
    FileDescriptor.standardError.writeAllIgnoringErrors("webhook-bench: \(error)\n")
    exit(1)
}
