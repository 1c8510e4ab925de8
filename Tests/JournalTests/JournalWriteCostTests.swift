import Delivery
import Foundation
@testable import Journal
import LiveLocation
import Testing
import TestSupport

/// What a commit costs in writes, as the kernel charges the journal's thread for them (issue 32:
/// bench/durability.sh measured 25,826 bytes written per event where a commit writes 4 to 6 WAL
/// frames of 536 bytes).
@Suite struct JournalWriteCostTests: ShareSamples {
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
        let (perCommit, charged, _) = try await chargedPerCommit(journal, share: .random(), from: 0)
        await journal.close()
        #expect(perCommit <= 8192, "\(perCommit) bytes charged per commit (\(charged) for 300)")
    }

    /// After a crash and a reboot the WAL is still there and nothing of it is cached: SQLite reads
    /// it at open (its recovery) through readahead, which brings it into the page cache in large
    /// folios, and every commit after that was charged a whole folio again (70 KiB per event in a
    /// daemon started after its caches were dropped). The journal brings the WAL back into the
    /// cache one page at a time at open.
    @Test func aCommitAfterACrashAndAColdCacheIsChargedForItsPagesToo() async throws {
        let directory = try Paths.temporaryDirectory("journal-write-cost-crash").path
        let image = try Paths.temporaryDirectory("journal-write-cost-image").path
        let id = ShareID.random()
        let first = try Journal(directory: directory, destinations: ["hook": QueuePolicy()], log: .silent)
        let (_, _, committed) = try await chargedPerCommit(first, share: id, from: 0, commits: 100)
        // The files as a power cut leaves them: the WAL not checkpointed, and not in the page cache.
        for name in ["journal.sqlite", "journal.sqlite-wal", "journal.high-water"] {
            try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: image + "/" + name)
            let descriptor = open(image + "/" + name, O_RDWR)
            #expect(fsync(descriptor) == 0 && posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
            close(descriptor)
        }
        await first.close()

        let journal = try Journal(directory: image, destinations: ["hook": QueuePolicy()], log: .silent)
        let (perCommit, charged, _) = try await chargedPerCommit(journal, share: id, from: committed)
        await journal.close()
        #expect(perCommit <= 8192, "\(perCommit) bytes charged per commit (\(charged) for 300)")
    }

    /// Commits `commits` batches of one update of `share` after seq `from` (20 more first, not
    /// counted) at 1 fix/s: each acknowledged at once, the acknowledgement riding with the next
    /// batch. Returns what the journal's thread was charged per commit, in all, and the last seq.
    func chargedPerCommit(_ journal: Journal, share id: ShareID, from first: Int,
                          commits: Int = 300) async throws -> (perCommit: Int, charged: Int, seq: Int) {
        var seq = first
        func commitOne() async throws {
            seq += 1
            try await journal.commit(ShareBatch(events: [update(id, seq)], share: ShareSnapshot(
                id: id, startedAt: start, expiresAt: start + .seconds(3600), seq: seq, updatesSent: seq), through: UInt64(seq)))
            // The destination has it at once: acknowledged, committed with the next batch.
            for queued in try await journal.pending("hook", after: 0, limit: 10) { journal.acknowledge("hook", position: queued.position) }
        }
        for _ in 0..<20 { try await commitOne() }
        let before = try await writeBytes(of: journal)
        for _ in 0..<commits { try await commitOne() }
        let charged = try await writeBytes(of: journal) - before
        return (charged / commits, charged, seq)
    }
}
