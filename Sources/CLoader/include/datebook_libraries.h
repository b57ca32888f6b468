#ifndef DATEBOOK_LIBRARIES_H
#define DATEBOOK_LIBRARIES_H

#include <stddef.h>

/* The C libraries datebook opens with dlopen the first time a command needs one, instead of
   linking them: each pulls in a tree of its own (libcurl ~30 libraries: OpenSSL, GnuTLS, Kerberos,
   LDAP, SSH; libpq OpenSSL, Kerberos, LDAP; libmicrohttpd GnuTLS; libxml2 liblzma) that every
   datebook process would otherwise load and bind at start (~7 ms and 15M instructions for libcurl
   alone), for the commands that never use it. docs/performance.md ("Libraries opened on use").

   THE list: its sonames are what dlopen opens, and `datebook doctor` (and through it `make
   install`'s note) reports each with its Debian package. One line per library:
   X(ID, soname, Debian package, what needs it, table accessor). */
#define DATEBOOK_LIBRARIES(X) \
    X(CURL, "libcurl.so.4", "libcurl4", "sending and fetching over HTTP and SMTP", datebook_curl) \
    X(PQ, "libpq.so.5", "libpq5", "a PostgreSQL store", datebook_pq) \
    X(MICROHTTPD, "libmicrohttpd.so.12", "libmicrohttpd12", "datebook serve", cmhd) \
    X(XML2, "libxml2.so.2", "libxml2", "the CalDAV sync", datebook_xml)

enum datebook_library {
#define DATEBOOK_LIBRARY_ID(id, soname, package, use, accessor) DATEBOOK_LIBRARY_##id,
    DATEBOOK_LIBRARIES(DATEBOOK_LIBRARY_ID)
#undef DATEBOOK_LIBRARY_ID
    DATEBOOK_LIBRARY_COUNT
};

/* A field of a library's table, from an X(field, symbol) entry: a pointer of the type of the
   library's own declaration, so every call through it is checked against the real header. */
#define DATEBOOK_LIBRARY_FIELD(field, symbol) __typeof__(symbol) *field;

/* The soname dlopen opens (`libpq.so.5`), the Debian package that installs it (`libpq5`), and
   what needs it (`a PostgreSQL store`). */
const char *datebook_library_soname(enum datebook_library library);
const char *datebook_library_package(enum datebook_library library);
const char *datebook_library_use(enum datebook_library library);

/* Opens the library (once; later calls return what the first found) and looks up every function
   of its table: 1 when it is usable. */
int datebook_library_available(enum datebook_library library);

/* Why the library cannot be used, as one sentence naming it and its Debian package ("cannot load
   libpq.so.5 (…): a PostgreSQL store needs it; install the Debian package libpq5"); "" when it
   was loaded or not tried yet. */
const char *datebook_library_problem(enum datebook_library library);

/* For the per-library accessors (datebook_curl(), datebook_pq(), cmhd(), datebook_xml()): opens
   `library` once and fills `table`, `size` bytes of function pointers, with the functions named
   in `names`, in order; `ready`, if any, runs once on the filled table. Returns `table`, or NULL
   when the library or one of the functions is missing (datebook_library_problem() says which). */
const void *datebook_library_table(enum datebook_library library, const char *const *names, void *table, size_t size,
                                   void (*ready)(void *table));

#endif
