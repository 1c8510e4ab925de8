// ThreadSanitizer's annotations for a lock it cannot see (Sources/Locking/Locked.swift).
//
// Both are weak: in a build without --sanitize=thread nothing defines them, their addresses are
// null, and the calls below do nothing. Under ThreadSanitizer its runtime (linked into the
// executable) defines them, and a lock's acquire and release become the happens-before edges
// ThreadSanitizer orders memory accesses by.
#ifndef LIVELOCD_CTHREADSANITIZER_SHIM_H
#define LIVELOCD_CTHREADSANITIZER_SHIM_H

void __tsan_acquire(void *address) __attribute__((weak));
void __tsan_release(void *address) __attribute__((weak));

static inline void livelocd_tsan_acquire(void *address) {
    if (__tsan_acquire) __tsan_acquire(address);
}

static inline void livelocd_tsan_release(void *address) {
    if (__tsan_release) __tsan_release(address);
}

#endif
