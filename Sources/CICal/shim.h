#ifndef DATEBOOK_CICAL_SHIM_H
#define DATEBOOK_CICAL_SHIM_H

#include <libical/ical.h>
#include <stdlib.h>

/// Frees a string returned by a libical `_r` function (caller-owned).
static inline void cical_free_string(char *s) { free(s); }

#endif
