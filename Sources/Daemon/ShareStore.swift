#if canImport(Glibc)
import Glibc
#endif
import JSONCoding
import LiveLocation
import SystemIO

/// Keeps the active share in the state directory (`share.json`), so that it survives a restart,
/// a crash or SIGKILL. Every write is atomic: a temporary file, fsync, rename, fsync of the directory.
package actor ShareStore {
    package nonisolated let directory: String
    package nonisolated var path: String { directory + "/share.json" }
    private var written: ShareSnapshot??
    private var lastPersist: Task<Void, Never>?
    private let log: DaemonLog

    package init(directory: String, log: DaemonLog) {
        self.directory = directory
        self.log = log
    }

    /// Creates the state directory when missing (mode 0700).
    package nonisolated func prepare() throws(SystemError) {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir", target: directory) }
    }

    /// The persisted share, if any. An unreadable or corrupt file is moved aside (`share.json.corrupt`)
    /// and reported; the daemon then starts without a share.
    package func load() -> ShareSnapshot? {
        let descriptor: FileDescriptor
        do { descriptor = try FileDescriptor.openForReading(path) } catch {
            if (error as? SystemError)?.errno != ENOENT { log("cannot read \(path): \(error)") }
            written = .some(nil)
            return nil
        }
        defer { descriptor.close() }
        let bytes = (try? descriptor.readToEnd(limit: 1 << 20, path: path)) ?? []
        guard let snapshot = try? JSON.decode(ShareSnapshot.self, from: bytes) else {
            log("\(path) is not a share; moved aside to \(path).corrupt")
            rename(path, path + ".corrupt")
            written = .some(nil)
            return nil
        }
        written = .some(snapshot)
        return snapshot
    }

    /// Persists the broadcaster's active share as it is now (or removes the file when none).
    /// Calls are served in order, each reading the share after the previous one was written, so the
    /// newest state is always written last. Returns once this call's state is on disk.
    ///
    /// With `delivered`, the event the sinks have just taken: the share is recorded as delivered up to
    /// that event, not as far as the broadcaster has run ahead, so that after a SIGKILL the events
    /// no sink took are emitted again (with the same seq) instead of being skipped.
    package func persist(from broadcaster: LiveLocationBroadcaster, delivered: ShareEvent? = nil) async {
        let previous = lastPersist
        let task = Task {
            await previous?.value
            var snapshot = await broadcaster.activeShare
            if let delivered, var share = snapshot {
                if share.id != delivered.shareID {
                    // A newer share whose events are still queued behind this one.
                    share.seq = 0
                    share.updatesSent = 0
                    share.lastSentFix = nil
                } else if share.seq > delivered.seq {
                    // Only updates follow within an active share.
                    share.updatesSent = max(0, share.updatesSent - (share.seq - delivered.seq))
                    share.seq = delivered.seq
                }
                snapshot = share
            }
            self.write(snapshot)
        }
        lastPersist = task
        await task.value
    }

    private func write(_ snapshot: ShareSnapshot?) {
        if let written, written == snapshot { return }
        do {
            if let snapshot {
                try AtomicFile.write(try JSON.encode(snapshot), to: path)
            } else {
                try AtomicFile.remove(path)
            }
            written = .some(snapshot)
        } catch {
            written = nil
            log("cannot persist the share: \(error)")
        }
    }

}
