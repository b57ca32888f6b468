#ifndef DATEBOOK_TABLE_H
#define DATEBOOK_TABLE_H

#include "datebook_libraries.h"

#define DATEBOOK_LIBRARY_SYMBOL_NAME(field, symbol) #symbol,

/* Defines `const TYPE *ACCESSOR(void)`, which returns LIBRARY's table of FUNCTIONS (X(field,
   symbol) entries) filled on first use, or NULL; READY, if not NULL, runs once on the filled table. */
#define DATEBOOK_LIBRARY_ACCESSOR(library, type, accessor, functions, ready) \
    static const char *const accessor##_names[] = {functions(DATEBOOK_LIBRARY_SYMBOL_NAME)}; \
    _Static_assert(sizeof(type) == sizeof accessor##_names / sizeof *accessor##_names * sizeof(void *), \
                   #accessor ": one name per field"); \
    const type *accessor(void) { \
        static type api; \
        return datebook_library_table(library, accessor##_names, &api, sizeof api, ready); \
    }

#endif
