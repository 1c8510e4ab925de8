#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: bind helpers that make SQLite copy the value.
static inline int csqlite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}
// sqlite3_db_config is variadic (Swift cannot call it): keep the WAL out of the file at close.
static inline int csqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
static inline int csqlite_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}
