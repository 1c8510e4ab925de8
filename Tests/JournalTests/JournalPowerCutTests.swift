import CCrashVFS
import Delivery
import Foundation
@testable import Journal
import LiveLocation
import Testing
import TestSupport

/// The journal through power cuts: a test-only SQLite VFS (Tests/CCrashVFS) keeps every file's last
/// synced image apart from the writes since, and at a cut returns each file to that image (keeping
/// each later write with a given chance: none, or half). A workload of commits, acknowledgements,
/// flushes and clean restarts runs until a cut at a random I/O operation; then the journal is
/// opened again and must hold everything that left the process: every batch whose synced commit
/// returned (after which the pipeline hands its events on: stdout, destinations, control replies),
/// every acknowledgement a returned commit or flush carried, and no seq with other content. Batches
/// are committed one at a time or several in one transaction (livelocd's `journal.sync_delay`: held
/// in memory, then committed with a batch that cannot wait, or by the deadline's timer).
@Suite(.serialized) struct JournalPowerCutTests {
    static let destinations = ["hook": QueuePolicy(), "broker": QueuePolicy(maxInFlight: 4)]
    static let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    /// What left the process so far, and what may have (the batch whose commit the cut interrupted).
    struct Outside {
        /// Every event of every returned commit, by share and seq.
        var handedOn: [String: ShareEvent] = [:]
        /// The share state of the last returned commit.
        var share: ShareSnapshot?
        /// The batches being committed (in one transaction) when the power went: their commit did
        /// not return, so they may or may not be there (and nothing of them left the process).
        var inFlight: [ShareBatch] = []
        /// Acknowledgements a returned commit or flush carried, by destination.
        var durablyAcknowledged: [String: Set<String>] = [:]
        /// Acknowledgements made since the last returned commit or flush.
        var acknowledgedSince: [String: Set<String>] = [:]

        static func key(_ event: ShareEvent) -> String { "\(event.shareID.rawValue)#\(event.seq)" }
    }

    /// A new state directory for a workload: the VFS's files gone, and the journal's high-water
    /// mark (a real file, which a power cut here never takes back: the hardest case for it) too.
    func startAfresh(_ directory: String) {
        crashvfs_reset()
        try? FileManager.default.removeItem(atPath: directory + "/journal.high-water")
    }

    func open(_ directory: String) throws -> Journal {
        try Journal(directory: directory, destinations: Self.destinations, sqliteVFS: "crashvfs", log: .silent)
    }

    func location(seq: Int, share: ShareSnapshot, active: Bool) -> LiveLocation {
        LiveLocation(latitude: 48 + Double(seq) * 1e-4, longitude: 11.5, lastUpdateAt: share.startedAt + .seconds(seq),
                     startedAt: share.startedAt, expiresAt: active ? share.expiresAt : share.startedAt + .seconds(seq),
                     isActive: active, accuracyMeters: 3)
    }

    /// Runs the workload of `seed` until it is done or the power is cut; returns what left the process.
    func runWorkload(seed: UInt64, steps: Int, directory: String) async -> Outside {
        var random = SeededGenerator(seed: seed)
        var outside = Outside()
        var shareNumber = 0
        var share: ShareSnapshot?
        var journal: Journal
        do { journal = try open(directory) } catch { return outside }

        /// Batches held in memory to be committed with a later one: nothing of them left the process.
        var held: [ShareBatch] = []

        /// Commits the held batches and `batch` in one transaction (`batch` nil: the held ones, as
        /// the deadline's timer does); once it returns, their events are handed on.
        func commit(_ batch: ShareBatch?) async -> Bool {
            outside.inFlight = held + (batch.map { [$0] } ?? [])
            guard !outside.inFlight.isEmpty else { return true }
            do { try await journal.commit(outside.inFlight) } catch { return false }
            for committed in outside.inFlight {
                for event in committed.events { outside.handedOn[Outside.key(event)] = event }
                outside.share = committed.share
            }
            outside.inFlight = []
            held = []
            synced()
            return true
        }

        /// A synced transaction returned: the acknowledgements made before it are on disk.
        func synced() {
            for (name, keys) in outside.acknowledgedSince { outside.durablyAcknowledged[name, default: []].formUnion(keys) }
            outside.acknowledgedSince = [:]
        }

        for step in 0..<steps {
            let roll = Int.random(in: 0..<100, using: &random)
            if share == nil || roll < 6 {
                // The active share ends (its final update and ended) and a new one starts.
                var events: [ShareEvent] = []
                if var ending = share {
                    ending.seq += 1
                    events.append(.updated(shareID: ending.id, seq: ending.seq, location: location(seq: ending.seq, share: ending, active: false)))
                    ending.seq += 1
                    events.append(.ended(shareID: ending.id, seq: ending.seq, reason: .stopped))
                }
                shareNumber += 1
                let started = ShareSnapshot(id: ShareID(rawValue: "s\(seed)-\(shareNumber)"), startedAt: Self.start + .seconds(step),
                                            expiresAt: Self.start + .seconds(step + 900))
                guard await commit(ShareBatch(events: events, share: started, through: UInt64(step))) else { break }
                share = started
            } else if roll < 76 {
                var next = share!
                var events: [ShareEvent] = []
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    next.seq += 1
                    next.updatesSent += 1
                    events.append(.updated(shareID: next.id, seq: next.seq, location: location(seq: next.seq, share: next, active: true)))
                }
                let batch = ShareBatch(events: events, share: next, through: UInt64(step))
                if Bool.random(using: &random) {
                    held.append(batch)
                } else {
                    guard await commit(batch) else { break }
                }
                share = next
            } else if roll < 92 {
                // A destination acknowledges its oldest few events; sometimes the journal flushes at once.
                let name = Self.destinations.keys.sorted()[Int.random(in: 0..<2, using: &random)]
                guard let queued = try? await journal.pending(name, after: 0, limit: Int.random(in: 1...6, using: &random)) else { break }
                for event in queued {
                    journal.acknowledge(name, position: event.position)
                    outside.acknowledgedSince[name, default: []].insert(Outside.key(event.event))
                }
                if Bool.random(using: &random) {
                    do { try await journal.flush() } catch { break }
                    synced()
                }
            } else if roll < 96 {
                // The deadline's timer of held batches (livelocd's journal.sync_delay).
                guard await commit(nil) else { break }
            } else {
                // A clean restart: what is held is committed (as a dispatcher does at its end), then
                // close (acknowledgements flushed, WAL checkpointed) and open again.
                guard await commit(nil) else { break }
                await journal.close()
                if crashvfs_cut_happened() != 0 { break }
                synced()  // the close's checkpoint syncs the WAL, then the database
                do { journal = try open(directory) } catch { break }
            }
            if crashvfs_cut_happened() != 0 { break }
        }
        await journal.close()
        return outside
    }

    /// Opens the journal after the cut and checks it against what left the process.
    func check(_ outside: Outside, directory: String, cut: String) async throws {
        let journal: Journal
        do { journal = try open(directory) } catch {
            Issue.record("\(cut): the journal does not open: \(error)")
            return
        }
        let share = await journal.activeShare
        let possibleShares = [outside.share] + outside.inFlight.map(\.share)
        #expect(possibleShares.contains(share),
                "\(cut): share \(String(describing: share)), last committed \(String(describing: outside.share))")
        // What may be there besides what left: the batches whose commit the cut interrupted.
        var inFlight: [String: ShareEvent] = [:]
        for event in outside.inFlight.flatMap(\.events) { inFlight[Outside.key(event)] = event }
        for name in Self.destinations.keys {
            let pending = try await journal.pending(name, after: 0, limit: 100_000)
            var seen = Set<String>()
            for queued in pending {
                let key = Outside.key(queued.event)
                seen.insert(key)
                #expect(queued.event == outside.handedOn[key] || queued.event == inFlight[key],
                        "\(cut): \(name) holds \(key) with content that never left the process")
                #expect(!(outside.durablyAcknowledged[name]?.contains(key) ?? false),
                        "\(cut): \(name)'s acknowledged \(key) is back")
            }
            let acknowledged = (outside.durablyAcknowledged[name] ?? []).union(outside.acknowledgedSince[name] ?? [])
            let lost = Set(outside.handedOn.keys).subtracting(acknowledged).subtracting(seen)
            #expect(lost.isEmpty, "\(cut): \(name) lost \(lost.sorted().prefix(5)) (of \(lost.count))")
        }
        // The seq goes on from where it left the process: the next event commits.
        if let share {
            let next = ShareEvent.ended(shareID: share.id, seq: share.seq + 1, reason: .stopped)
            #expect(outside.handedOn[Outside.key(next)] == nil, "\(cut): seq \(share.seq + 1) of \(share.id) already left the process")
            do { try await journal.commit(ShareBatch(events: [next], share: nil, through: 1)) } catch {
                Issue.record("\(cut): the journal cannot commit after the cut: \(error)")
            }
        }
        await journal.close()
    }

    @Test func atAThousandRandomCutPointsNothingThatLeftTheProcessIsLostOrChanged() async throws {
        #expect(crashvfs_register() == 0)
        let directory = try Paths.temporaryDirectory("journal-power-cut").path
        var random = SeededGenerator(seed: 2026)
        // Under a sanitizer, the same code paths cut fewer times: 200 cuts under AddressSanitizer
        // (the thousand took it 155 s), 100 under ThreadSanitizer (330 s: one thread does the work).
        // make test cuts a thousand times.
        let workloads = Sanitizer.current == nil ? 20 : Sanitizer.isThread ? 2 : 4, cutsPerWorkload = 50, steps = 200
        var cuts = 0
        for workload in 0..<workloads {
            let seed = UInt64(workload + 1)
            // A run without a cut counts the workload's I/O operations. The count varies by about 1 %
            // from run to run (the journal's queues are a dictionary, whose order is per instance:
            // rows go in in another order, B-tree pages split elsewhere): cuts are drawn from the
            // first 95 %, which every run reaches.
            startAfresh(directory)
            let complete = await runWorkload(seed: seed, steps: steps, directory: directory)
            let operations = crashvfs_operations() * 95 / 100
            #expect(complete.inFlight.isEmpty && operations > 1000)
            for _ in 0..<cutsPerWorkload {
                let cutAt = Int64.random(in: 1...operations, using: &random)
                let keepPercent: Int32 = Bool.random(using: &random) ? 0 : 50
                startAfresh(directory)
                crashvfs_arm_cut(cutAt)
                let outside = await runWorkload(seed: seed, steps: steps, directory: directory)
                #expect(crashvfs_cut_happened() != 0, "workload \(seed): no cut at \(cutAt) of \(operations); \(crashvfs_operations()) this time")
                crashvfs_power_loss(UInt32(truncatingIfNeeded: random.next()), keepPercent)
                try await check(outside, directory: directory, cut: "workload \(seed), cut at operation \(cutAt) of \(operations), \(keepPercent)% of unsynced writes kept")
                cuts += 1
            }
        }
        #expect(cuts == workloads * cutsPerWorkload && (cuts >= 1000 || Sanitizer.current != nil))
        crashvfs_reset()
    }
}
