import SystemIO

/// The journal's WAL (`journal.sqlite-wal`) kept at its working size, so that a commit overwrites
/// bytes the file already has instead of growing it.
///
/// A commit ends in one `fdatasync` of the WAL. When the commit grew the file, ext4 must also
/// commit the new size to its own journal before `fdatasync` returns: more waits of the committing
/// thread and more blocks written per commit. Measured on this machine's ext4, commits of six
/// writes (24 + 512 bytes each) 20 ms apart: 3.2 voluntary context switches per commit growing the
/// file, 3.0 overwriting it; in `bench/daemon-footprint.sh` (a share at 1 fix/s) the journal's
/// thread went from 4.40 to 4.05 wake-ups per fix.
/// SQLite writes its WAL from the start again after each checkpoint (every 1,000 frames), so a
/// file that has reached its working size is only overwritten from then on; this gets it there at
/// open: a WAL shorter than `workingSize` is extended with zeros, written and synced (a fallocated
/// extent would not do: its first write is again a change of metadata). SQLite reads a WAL only up
/// to its first frame whose salt and checksum do not match, so zeros past its last frame are never
/// read as frames; they are written between transactions, past everything SQLite wrote. SQLite
/// removes the WAL when the journal closes (everything in it checkpointed), so each start writes
/// these 532 KiB once.
///
/// The zeros go one page-cache page (4 KiB) per write (issue 32: 25,826 bytes written per event).
/// Since Linux 6.16, ext4 keeps a file in the page cache in large folios, as large as the write that
/// first brought each part of it in: 64 KiB writes left the WAL in folios of up to 64 KiB. A synced
/// commit leaves its folio clean, the next commit dirties it again, and the kernel charges the
/// process the whole folio (`write_bytes` in /proc/PID/io, what bench/durability.sh measures):
/// 8 KiB per commit just after the WAL starts over, then 16, 32 and 64 KiB as the commits move into
/// the larger folios, about 50 frames' worth for the 4 to 6 frames (2 to 3 KiB) a commit writes.
/// The blocks that reach the disk are the same either way (measured on a loop device: 3,693 bytes
/// per commit of five frames with 64 KiB or 4 KiB writes); the figure is again what the journal
/// writes, about one or two 4 KiB pages per commit. Tests/JournalTests/JournalWriteCostTests.swift.
enum WriteAheadLogFile {
    /// The WAL between two checkpoints: its 32-byte header and 1,016 frames (SQLite's automatic
    /// checkpoint at 1,000 pages, plus the last commit's pages) of 24 + 512 bytes: 544,608 bytes.
    static let workingSize: Int64 = 32 + 1_016 * (24 + 512)
    /// `journal_size_limit` while the journal is open: at the first commit after a checkpoint,
    /// SQLite truncates a longer WAL to this.
    static let sizeLimit = 1_048_576
    /// One page of the page cache (4 KiB on the systems livelocd runs on): a write this size brings
    /// its part of the file into the page cache as a folio of one page.
    static let pageCachePageBytes = 4096

    /// Extends the WAL of the journal at `journalPath` with zeros to `workingSize` and syncs it;
    /// does nothing when it is that long already or does not exist. What it had already is brought
    /// back into the page cache one page at a time first: after a crash and a reboot SQLite has
    /// just read all of it (its recovery at open) through readahead, in large folios, and each
    /// commit was then charged a whole one again (70 KiB per commit).
    /// - Throws: `SystemError` when the file cannot be opened, read, written or synced.
    static func extendToWorkingSize(journalPath: String) throws(SystemError) {
        let walPath = journalPath + "-wal"
        guard FileSystem.exists(walPath) else { return }
        let file = try FileDescriptor.openFile(walPath, FileOpening(.readWrite))
        defer { file.close() }
        let size = try file.status(path: walPath).size
        try file.recacheInPages(upTo: min(size, workingSize), pageBytes: pageCachePageBytes, path: walPath)
        guard size < workingSize else { return }
        try file.writeZeros(workingSize - size, at: size, chunkBytes: pageCachePageBytes, path: walPath)
        try file.syncData(path: walPath)
    }
}
