#ifndef DATEBOOK_CSQLITE_SHIM_H
#define DATEBOOK_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; it does not import into Swift.
static inline sqlite3_destructor_type datebook_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_config is variadic. Memory statistics cost a global mutex on every allocation; datebook
/// never reads them. Must run before the first connection opens (before sqlite3_initialize).
static inline int datebook_sqlite_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// sqlite3_db_config is variadic. A connection that must not fold its write-ahead log into the
/// file when it closes: the file's content was replaced under it (a store copied over a live one).
static inline int datebook_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
#endif
