#ifndef DATEBOOK_CCMARK_SHIM_H
#define DATEBOOK_CCMARK_SHIM_H

#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>

/// The option macros are plain integers, but re-export them so Swift need not know the bits.
static inline int datebook_cmark_opt_default(void) { return CMARK_OPT_DEFAULT; }
/// Safe mode is the default since 0.29; CMARK_OPT_UNSAFE is what we must never pass.
static inline int datebook_cmark_opt_unsafe(void) { return CMARK_OPT_UNSAFE; }

#endif
