import Delivery
import Foundation
@testable import Journal
import LiveLocation
import Testing
import TestSupport

/// What a commit costs in writes, as the kernel charges the journal's thread for them (issue 32:
/// bench/durability.sh measured 25,826 bytes written per event where a commit writes 4 to 6 WAL
/// frames of 536 bytes).
@Suite struct JournalWriteCostTests {
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    func update(_ id: ShareID, _ seq: Int) -> ShareEvent {
        .updated(shareID: id, seq: seq, location: LiveLocation(
            latitude: 48.1 + Double(seq) * 1e-4, longitude: 11.5, lastUpdateAt: start + .seconds(seq), startedAt: start,
            expiresAt: start + .seconds(3600), isActive: true, accuracyMeters: 3.5))
    }

    /// `write_bytes` of the journal's own thread (/proc/thread-self/io, read on that thread): what
    /// the kernel charged it for pages it dirtied.
    func writeBytes(of journal: Journal) async throws -> Int {
        let text = await Task(executorPreference: journal.taskExecutor) {
            try? String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        }.value
        let line = try #require(text?.split(separator: "\n").first { $0.hasPrefix("write_bytes:") })
        return try #require(Int(line.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)))
    }

    /// A commit at 1 fix/s (one update, the previous one's acknowledgement riding with it) is
    /// charged for the 4 KiB pages its frames land in: one or two. The WAL's zeros were written
    /// 64 KiB at a time, and since Linux 6.16 ext4 kept them in folios that large: each commit
    /// dirtied a whole folio again after the last sync, charged 8 to 64 KiB (24 KiB on average
    /// over a WAL cycle).
    @Test func aCommitIsChargedForThePagesItsFramesLandInNotForAWholeLargeFolio() async throws {
        let directory = try Paths.temporaryDirectory("journal-write-cost").path
        let journal = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        let id = ShareID.random()
        var seq = 0
        func commitOne() async throws {
            seq += 1
            try await journal.commit(ShareBatch(events: [update(id, seq)], share: ShareSnapshot(
                id: id, startedAt: start, expiresAt: start + .seconds(3600), seq: seq, updatesSent: seq), through: UInt64(seq)))
            // The destination has it at once: acknowledged, committed with the next batch.
            for queued in try await journal.pending("hook", after: 0, limit: 10) { journal.acknowledge("hook", position: queued.position) }
        }
        for _ in 0..<20 { try await commitOne() }
        let before = try await writeBytes(of: journal)
        let commits = 300
        for _ in 0..<commits { try await commitOne() }
        let charged = try await writeBytes(of: journal) - before
        await journal.close()
        let perCommit = charged / commits
        #expect(perCommit <= 8192, "\(perCommit) bytes charged per commit (\(charged) for \(commits))")
    }
}
