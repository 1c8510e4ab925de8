#include "crashvfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

// One write or truncation made after the file's last sync.
typedef struct Change {
    sqlite3_int64 offset;  // a write's offset; for a truncation, the new size
    int length;            // -1 for a truncation
    unsigned char *bytes;
    struct Change *next;
} Change;

typedef struct MemFile {
    char *name;
    unsigned char *data;
    sqlite3_int64 size, capacity;
    unsigned char *synced;  // the image as of the last sync
    sqlite3_int64 syncedSize;
    Change *changes, *lastChange;
    struct MemFile *next;
} MemFile;

typedef struct OpenFile {
    sqlite3_file base;
    MemFile *file;
    int temporary;  // a nameless file: freed on close
} OpenFile;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static MemFile *files;
static long long operations;
static long long cutAt;  // 0: no cut armed
static int cutHappened;

// Counts one I/O operation; false when the power is (now) off.
static int powered(void) {
    if (cutHappened) return 0;
    operations++;
    if (cutAt > 0 && operations >= cutAt) {
        cutHappened = 1;
        return 0;
    }
    return 1;
}

static void freeChanges(MemFile *file) {
    Change *change = file->changes;
    while (change) {
        Change *next = change->next;
        free(change->bytes);
        free(change);
        change = next;
    }
    file->changes = file->lastChange = NULL;
}

static void freeFile(MemFile *file) {
    freeChanges(file);
    free(file->name);
    free(file->data);
    free(file->synced);
    free(file);
}

static int reserve(MemFile *file, sqlite3_int64 size) {
    if (size <= file->capacity) return 1;
    sqlite3_int64 capacity = file->capacity ? file->capacity : 4096;
    while (capacity < size) capacity *= 2;
    unsigned char *data = realloc(file->data, (size_t)capacity);
    if (!data) return 0;
    memset(data + file->capacity, 0, (size_t)(capacity - file->capacity));
    file->data = data;
    file->capacity = capacity;
    return 1;
}

static void setSize(MemFile *file, sqlite3_int64 size) {
    if (size < file->size) memset(file->data + size, 0, (size_t)(file->size - size));
    file->size = size;
}

static int record(MemFile *file, sqlite3_int64 offset, int length, const void *bytes) {
    Change *change = calloc(1, sizeof(Change));
    if (!change) return 0;
    change->offset = offset;
    change->length = length;
    if (length > 0) {
        change->bytes = malloc((size_t)length);
        if (!change->bytes) { free(change); return 0; }
        memcpy(change->bytes, bytes, (size_t)length);
    }
    if (file->lastChange) file->lastChange->next = change; else file->changes = change;
    file->lastChange = change;
    return 1;
}

static MemFile *findFile(const char *name) {
    for (MemFile *file = files; file; file = file->next) if (strcmp(file->name, name) == 0) return file;
    return NULL;
}

static void unlinkFile(MemFile *target) {
    for (MemFile **link = &files; *link; link = &(*link)->next) {
        if (*link == target) { *link = target->next; return; }
    }
}

// MARK: - File methods

static int memClose(sqlite3_file *base) {
    OpenFile *open = (OpenFile *)base;
    if (open->temporary) freeFile(open->file);
    return SQLITE_OK;
}

static int memRead(sqlite3_file *base, void *buffer, int amount, sqlite3_int64 offset) {
    pthread_mutex_lock(&lock);
    MemFile *file = ((OpenFile *)base)->file;
    int code = SQLITE_OK;
    if (offset >= file->size) {
        memset(buffer, 0, (size_t)amount);
        code = SQLITE_IOERR_SHORT_READ;
    } else if (offset + amount > file->size) {
        sqlite3_int64 available = file->size - offset;
        memcpy(buffer, file->data + offset, (size_t)available);
        memset((unsigned char *)buffer + available, 0, (size_t)(amount - available));
        code = SQLITE_IOERR_SHORT_READ;
    } else {
        memcpy(buffer, file->data + offset, (size_t)amount);
    }
    pthread_mutex_unlock(&lock);
    return code;
}

static int memWrite(sqlite3_file *base, const void *buffer, int amount, sqlite3_int64 offset) {
    OpenFile *open = (OpenFile *)base;
    pthread_mutex_lock(&lock);
    MemFile *file = open->file;
    int code = SQLITE_OK;
    if (!open->temporary && !powered()) code = SQLITE_IOERR_WRITE;
    else if (!reserve(file, offset + amount) || (!open->temporary && !record(file, offset, amount, buffer))) code = SQLITE_IOERR_NOMEM;
    else {
        memcpy(file->data + offset, buffer, (size_t)amount);
        if (offset + amount > file->size) file->size = offset + amount;
    }
    pthread_mutex_unlock(&lock);
    return code;
}

static int memTruncate(sqlite3_file *base, sqlite3_int64 size) {
    OpenFile *open = (OpenFile *)base;
    pthread_mutex_lock(&lock);
    MemFile *file = open->file;
    int code = SQLITE_OK;
    if (!open->temporary && !powered()) code = SQLITE_IOERR_TRUNCATE;
    else if (!open->temporary && !record(file, size, -1, NULL)) code = SQLITE_IOERR_NOMEM;
    else if (size < file->size) setSize(file, size);
    pthread_mutex_unlock(&lock);
    return code;
}

static int memSync(sqlite3_file *base, int flags) {
    (void)flags;
    OpenFile *open = (OpenFile *)base;
    pthread_mutex_lock(&lock);
    MemFile *file = open->file;
    int code = SQLITE_OK;
    if (!open->temporary) {
        if (!powered()) code = SQLITE_IOERR_FSYNC;
        else {
            unsigned char *image = malloc((size_t)(file->size ? file->size : 1));
            if (!image) code = SQLITE_IOERR_NOMEM;
            else {
                memcpy(image, file->data, (size_t)file->size);
                free(file->synced);
                file->synced = image;
                file->syncedSize = file->size;
                freeChanges(file);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return code;
}

static int memFileSize(sqlite3_file *base, sqlite3_int64 *size) {
    pthread_mutex_lock(&lock);
    *size = ((OpenFile *)base)->file->size;
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

static int memLock(sqlite3_file *base, int level) { (void)base; (void)level; return SQLITE_OK; }
static int memUnlock(sqlite3_file *base, int level) { (void)base; (void)level; return SQLITE_OK; }
static int memCheckReservedLock(sqlite3_file *base, int *reserved) { (void)base; *reserved = 0; return SQLITE_OK; }
static int memFileControl(sqlite3_file *base, int op, void *argument) { (void)base; (void)op; (void)argument; return SQLITE_NOTFOUND; }
static int memSectorSize(sqlite3_file *base) { (void)base; return 512; }
static int memDeviceCharacteristics(sqlite3_file *base) { (void)base; return SQLITE_IOCAP_POWERSAFE_OVERWRITE; }

// Version 1: no shared memory. WAL then needs EXCLUSIVE locking mode before the first access, which
// the journal sets (PRAGMA locking_mode=EXCLUSIVE): its wal-index is in the heap.
static const sqlite3_io_methods memMethods = {
    1, memClose, memRead, memWrite, memTruncate, memSync, memFileSize, memLock, memUnlock,
    memCheckReservedLock, memFileControl, memSectorSize, memDeviceCharacteristics,
    0, 0, 0, 0, 0, 0,
};

// MARK: - VFS methods

static sqlite3_vfs crashVFS;

static int memOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    (void)vfs;
    OpenFile *open = (OpenFile *)base;
    memset(open, 0, sizeof(*open));
    pthread_mutex_lock(&lock);
    int code = SQLITE_OK;
    MemFile *file = name ? findFile(name) : NULL;
    if (!file) {
        if (name && !(flags & SQLITE_OPEN_CREATE)) code = SQLITE_CANTOPEN;
        else if (name && cutHappened) code = SQLITE_CANTOPEN;
        else {
            file = calloc(1, sizeof(MemFile));
            if (!file) code = SQLITE_NOMEM;
            else if (name) {
                file->name = strdup(name);
                file->next = files;
                files = file;
            } else {
                open->temporary = 1;
            }
        }
    }
    if (code == SQLITE_OK) {
        open->file = file;
        open->base.pMethods = &memMethods;
        if (outFlags) *outFlags = flags;
    }
    pthread_mutex_unlock(&lock);
    return code;
}

static int memDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs; (void)syncDirectory;
    pthread_mutex_lock(&lock);
    int code = SQLITE_OK;
    MemFile *file = findFile(name);
    if (!powered()) code = SQLITE_IOERR_DELETE;
    else if (file) {
        unlinkFile(file);
        freeFile(file);
    }
    pthread_mutex_unlock(&lock);
    return code;
}

static int memAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs; (void)flags;
    pthread_mutex_lock(&lock);
    MemFile *file = findFile(name);
    // As the unix VFS: an empty file does not exist for SQLITE_ACCESS_EXISTS (an empty WAL).
    *result = file != NULL && (flags != SQLITE_ACCESS_EXISTS || file->size > 0);
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

static int memFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    sqlite3_snprintf(size, out, "%s", name);
    return SQLITE_OK;
}

static void *memDlOpen(sqlite3_vfs *vfs, const char *name) { (void)vfs; (void)name; return NULL; }
static void memDlError(sqlite3_vfs *vfs, int size, char *message) { (void)vfs; sqlite3_snprintf(size, message, "no extensions"); }
static void (*memDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { (void)vfs; (void)handle; (void)symbol; return NULL; }
static void memDlClose(sqlite3_vfs *vfs, void *handle) { (void)vfs; (void)handle; }

static int memRandomness(sqlite3_vfs *vfs, int size, char *out) {
    sqlite3_vfs *system = vfs->pAppData;
    return system->xRandomness(system, size, out);
}
static int memSleep(sqlite3_vfs *vfs, int microseconds) {
    sqlite3_vfs *system = vfs->pAppData;
    return system->xSleep(system, microseconds);
}
static int memCurrentTime(sqlite3_vfs *vfs, double *now) {
    sqlite3_vfs *system = vfs->pAppData;
    return system->xCurrentTime(system, now);
}
static int memGetLastError(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; (void)size; (void)out; return 0; }
static int memCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    sqlite3_vfs *system = vfs->pAppData;
    return system->xCurrentTimeInt64(system, now);
}

int crashvfs_register(void) {
    if (sqlite3_vfs_find("crashvfs")) return SQLITE_OK;
    sqlite3_vfs *system = sqlite3_vfs_find(NULL);
    if (!system) return SQLITE_ERROR;
    crashVFS.iVersion = 2;
    crashVFS.szOsFile = sizeof(OpenFile);
    crashVFS.mxPathname = 1024;
    crashVFS.zName = "crashvfs";
    crashVFS.pAppData = system;
    crashVFS.xOpen = memOpen;
    crashVFS.xDelete = memDelete;
    crashVFS.xAccess = memAccess;
    crashVFS.xFullPathname = memFullPathname;
    crashVFS.xDlOpen = memDlOpen;
    crashVFS.xDlError = memDlError;
    crashVFS.xDlSym = memDlSym;
    crashVFS.xDlClose = memDlClose;
    crashVFS.xRandomness = memRandomness;
    crashVFS.xSleep = memSleep;
    crashVFS.xCurrentTime = memCurrentTime;
    crashVFS.xGetLastError = memGetLastError;
    crashVFS.xCurrentTimeInt64 = memCurrentTimeInt64;
    return sqlite3_vfs_register(&crashVFS, 0);
}

void crashvfs_reset(void) {
    pthread_mutex_lock(&lock);
    while (files) {
        MemFile *next = files->next;
        freeFile(files);
        files = next;
    }
    operations = 0;
    cutAt = 0;
    cutHappened = 0;
    pthread_mutex_unlock(&lock);
}

void crashvfs_arm_cut(long long count) {
    pthread_mutex_lock(&lock);
    cutAt = count > 0 ? operations + count : 0;
    cutHappened = 0;
    pthread_mutex_unlock(&lock);
}

long long crashvfs_operations(void) {
    pthread_mutex_lock(&lock);
    long long count = operations;
    pthread_mutex_unlock(&lock);
    return count;
}

int crashvfs_cut_happened(void) {
    pthread_mutex_lock(&lock);
    int happened = cutHappened;
    pthread_mutex_unlock(&lock);
    return happened;
}

void crashvfs_power_loss(unsigned int seed, int keepPercent) {
    pthread_mutex_lock(&lock);
    unsigned int state = seed ? seed : 1;
    for (MemFile *file = files; file; file = file->next) {
        sqlite3_int64 size = file->syncedSize;
        if (!reserve(file, size)) continue;
        memset(file->data, 0, (size_t)file->capacity);
        if (size > 0) memcpy(file->data, file->synced, (size_t)size);
        file->size = size;
        for (Change *change = file->changes; change; change = change->next) {
            state = state * 1103515245u + 12345u;
            if ((int)((state >> 16) % 100) >= keepPercent) continue;
            if (change->length < 0) {
                if (change->offset < file->size) setSize(file, change->offset);
            } else if (reserve(file, change->offset + change->length)) {
                memcpy(file->data + change->offset, change->bytes, (size_t)change->length);
                if (change->offset + change->length > file->size) file->size = change->offset + change->length;
            }
        }
        // What survived is what the disk holds now.
        unsigned char *image = malloc((size_t)(file->size ? file->size : 1));
        if (image) {
            memcpy(image, file->data, (size_t)file->size);
            free(file->synced);
            file->synced = image;
            file->syncedSize = file->size;
        }
        freeChanges(file);
    }
    cutAt = 0;
    cutHappened = 0;
    pthread_mutex_unlock(&lock);
}
