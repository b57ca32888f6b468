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
#endif
