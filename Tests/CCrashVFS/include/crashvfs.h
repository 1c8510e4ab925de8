#ifndef CRASHVFS_H
#define CRASHVFS_H

// A test-only SQLite VFS that simulates power cuts, after SQLite's own crash tests (test6.c): files
// live in memory, each with the image it had at its last xSync (what a disk keeps through a power
// cut) and the writes since (what it may lose). A cut can be armed after a number of I/O operations
// (writes, truncations, syncs, deletions): from then on every such operation fails as if the
// process had died. `crashvfs_power_loss` then returns every file to its last synced image, keeping
// each write made after it with a given probability (0: every unsynced write is lost).
//
// The file-system-wide methods (randomness, sleep, time) are the default VFS's (unix). Files are
// shared by name across connections; the registered name is "crashvfs". Never used by production
// code: only the journal's crash-consistency test opens a journal with it.

// Registers the VFS under the name "crashvfs" (not as the default). Returns an SQLite code.
int crashvfs_register(void);
// Forgets every file and disarms the cut.
void crashvfs_reset(void);
// Arms a cut: the `operations`-th I/O operation from now fails, and every one after it (0 disarms).
void crashvfs_arm_cut(long long operations);
// I/O operations counted since the last reset.
long long crashvfs_operations(void);
// Whether the armed cut has happened.
int crashvfs_cut_happened(void);
// The power cut itself: every file back to its synced image plus each later write with probability
// `keep_percent`/100 (a pseudo-random choice from `seed`); the cut is disarmed afterwards. Call it
// only once every connection to the files is closed.
void crashvfs_power_loss(unsigned int seed, int keep_percent);

#endif
