#include "CLoader.h"
#include "table.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The tables of the libraries whose table Swift reads (xml.c has libxml2's). */
DATEBOOK_LIBRARY_ACCESSOR(DATEBOOK_LIBRARY_CURL, struct datebook_curl_api, datebook_curl, DATEBOOK_CURL_FUNCTIONS, NULL)
DATEBOOK_LIBRARY_ACCESSOR(DATEBOOK_LIBRARY_PQ, struct datebook_pq_api, datebook_pq, DATEBOOK_PQ_FUNCTIONS, NULL)
DATEBOOK_LIBRARY_ACCESSOR(DATEBOOK_LIBRARY_MICROHTTPD, struct cmhd_api, cmhd, CMHD_FUNCTIONS, NULL)

struct library {
    const char *soname;
    const char *package;
    const char *use;
    const void *(*accessor)(void);
};

/* The accessors return their own table types: called here only to be compared with NULL. */
#define DATEBOOK_LIBRARY_OPEN(id, soname, package, use, accessor) \
    static const void *open_##id(void) { return accessor(); }
DATEBOOK_LIBRARIES(DATEBOOK_LIBRARY_OPEN)
#undef DATEBOOK_LIBRARY_OPEN

static const struct library libraries[DATEBOOK_LIBRARY_COUNT] = {
#define DATEBOOK_LIBRARY_ENTRY(id, soname, package, use, accessor) [DATEBOOK_LIBRARY_##id] = {soname, package, use, open_##id},
    DATEBOOK_LIBRARIES(DATEBOOK_LIBRARY_ENTRY)
#undef DATEBOOK_LIBRARY_ENTRY
};

/* What opening each library found; written once, under `lock`, before `done` is set. */
static struct {
    int done;
    int loaded;
    char problem[512];
} states[DATEBOOK_LIBRARY_COUNT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int known(enum datebook_library library) { return (unsigned)library < DATEBOOK_LIBRARY_COUNT; }

const char *datebook_library_soname(enum datebook_library library) { return known(library) ? libraries[library].soname : ""; }
const char *datebook_library_package(enum datebook_library library) { return known(library) ? libraries[library].package : ""; }
const char *datebook_library_use(enum datebook_library library) { return known(library) ? libraries[library].use : ""; }

int datebook_library_available(enum datebook_library library) {
    return known(library) && libraries[library].accessor() != NULL;
}

const char *datebook_library_problem(enum datebook_library library) {
    if (!known(library) || !__atomic_load_n(&states[library].done, __ATOMIC_ACQUIRE)) return "";
    return states[library].problem;
}

static void record_problem(enum datebook_library library, const char *why) {
    const struct library *entry = &libraries[library];
    /* dlerror() starts with the name that was asked for: said once, in front. */
    size_t length = strlen(entry->soname);
    if (strncmp(why, entry->soname, length) == 0 && strncmp(why + length, ": ", 2) == 0) why += length + 2;
    snprintf(states[library].problem, sizeof states[library].problem,
             "cannot load %s (%s): %s needs it; install the Debian package %s", entry->soname, why, entry->use, entry->package);
}

static void open_library(enum datebook_library library, const char *const *names, void **table, size_t count) {
    const char *soname = libraries[library].soname;
    void *handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        record_problem(library, why ? why : "not found");
        return;
    }
    for (size_t i = 0; i < count; i++) {
        if (!(table[i] = dlsym(handle, names[i]))) {
            char why[128];
            snprintf(why, sizeof why, "it has no %s: an older version?", names[i]);
            record_problem(library, why);
            return;
        }
    }
    states[library].loaded = 1;
}

const void *datebook_library_table(enum datebook_library library, const char *const *names, void *table, size_t size,
                                   void (*ready)(void *table)) {
    if (!known(library)) return NULL;
    if (!__atomic_load_n(&states[library].done, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&lock);
        if (!states[library].done) {
            /* Filled whole or not at all: a table with a missing function is never handed out. */
            void *filled[64];
            size_t count = size / sizeof(void *);
            if (count > sizeof filled / sizeof *filled) {
                record_problem(library, "datebook's table of its functions is too long");
            } else {
                open_library(library, names, filled, count);
                if (states[library].loaded) {
                    memcpy(table, filled, size);
                    if (ready) ready(table);
                }
            }
            __atomic_store_n(&states[library].done, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    return states[library].loaded ? table : NULL;
}
