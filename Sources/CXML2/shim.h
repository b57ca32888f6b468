#ifndef DATEBOOK_CXML2_SHIM_H
#define DATEBOOK_CXML2_SHIM_H

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* libxml2's streaming reader (xmlreader.h), opened on first use like libcurl (CCurl/shim.h):
   linking it would load and bind libxml2 (and liblzma through it) in every datebook process, for
   the CalDAV sync alone. Its headers sit in
   /usr/include/libxml2, which a module map cannot put on the include path without also linking
   the library (pkg-config), so the few declarations used are written out here, as in libxml2
   2.9's xmlreader.h and parser.h; the soname libxml2.so.2 keeps them stable. DatebookSync's
   DAVXMLReader is the only caller. */

typedef struct datebook_xml_reader datebook_xml_reader;   /* xmlTextReader */
typedef void datebook_xml_locator;                         /* xmlTextReaderLocator */
typedef void (*datebook_xml_error_func)(void *arg, const char *msg, int severity, datebook_xml_locator *locator);

/* xmlParserOption values (parser.h). */
enum {
    DATEBOOK_XML_PARSE_NOERROR = 1 << 5,
    DATEBOOK_XML_PARSE_NOWARNING = 1 << 6,
    DATEBOOK_XML_PARSE_NONET = 1 << 11,
    DATEBOOK_XML_PARSE_HUGE = 1 << 19,
};

/* xmlReaderTypes values (xmlreader.h). */
enum {
    DATEBOOK_XML_ELEMENT = 1,
    DATEBOOK_XML_TEXT = 3,
    DATEBOOK_XML_CDATA = 4,
    DATEBOOK_XML_ENTITY_REFERENCE = 5,
    DATEBOOK_XML_DOCUMENT_TYPE = 10,
    DATEBOOK_XML_WHITESPACE = 13,
    DATEBOOK_XML_SIGNIFICANT_WHITESPACE = 14,
    DATEBOOK_XML_END_ELEMENT = 15,
};

struct datebook_xml_api {
    void (*initParser)(void);
    void (*setGenericErrorFunc)(void *ctx, void (*handler)(void *ctx, const char *msg, ...));
    datebook_xml_reader *(*readerForMemory)(const char *buffer, int size, const char *url, const char *encoding, int options);
    void (*freeTextReader)(datebook_xml_reader *reader);
    int (*textReaderRead)(datebook_xml_reader *reader);
    int (*textReaderNodeType)(datebook_xml_reader *reader);
    int (*textReaderDepth)(datebook_xml_reader *reader);
    int (*textReaderIsEmptyElement)(datebook_xml_reader *reader);
    int (*textReaderIsNamespaceDecl)(datebook_xml_reader *reader);
    const unsigned char *(*textReaderConstLocalName)(datebook_xml_reader *reader);
    const unsigned char *(*textReaderConstNamespaceUri)(datebook_xml_reader *reader);
    const unsigned char *(*textReaderConstValue)(datebook_xml_reader *reader);
    int (*textReaderMoveToNextAttribute)(datebook_xml_reader *reader);
    int (*textReaderMoveToElement)(datebook_xml_reader *reader);
    int (*textReaderGetParserLineNumber)(datebook_xml_reader *reader);
    void (*textReaderSetErrorHandler)(datebook_xml_reader *reader, datebook_xml_error_func f, void *arg);
    int (*textReaderLocatorLineNumber)(datebook_xml_locator *locator);
};

struct datebook_xml_state {
    struct datebook_xml_api api;
    int loaded;
    char error[256];
};

/* libxml2's own messages for anything not routed through a reader's handler: dropped (only the
   CLI prints; a reader's errors reach the caller through datebook_xml_error). */
static inline void datebook_xml_ignore(void *ctx, const char *msg, ...) {
    (void)ctx;
    (void)msg;
}

static inline void datebook_xml_open(struct datebook_xml_state *state) {
    void *library = dlopen("libxml2.so.2", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(state->error, sizeof state->error, "%s", why ? why : "libxml2.so.2 not found");
        return;
    }
    struct datebook_xml_api api;
#define DATEBOOK_XML_SYMBOL(field, name) \
    if (!(*(void **)&api.field = dlsym(library, #name))) { \
        snprintf(state->error, sizeof state->error, "libxml2.so.2 has no %s", #name); \
        return; \
    }
    DATEBOOK_XML_SYMBOL(initParser, xmlInitParser)
    DATEBOOK_XML_SYMBOL(setGenericErrorFunc, xmlSetGenericErrorFunc)
    DATEBOOK_XML_SYMBOL(readerForMemory, xmlReaderForMemory)
    DATEBOOK_XML_SYMBOL(freeTextReader, xmlFreeTextReader)
    DATEBOOK_XML_SYMBOL(textReaderRead, xmlTextReaderRead)
    DATEBOOK_XML_SYMBOL(textReaderNodeType, xmlTextReaderNodeType)
    DATEBOOK_XML_SYMBOL(textReaderDepth, xmlTextReaderDepth)
    DATEBOOK_XML_SYMBOL(textReaderIsEmptyElement, xmlTextReaderIsEmptyElement)
    DATEBOOK_XML_SYMBOL(textReaderIsNamespaceDecl, xmlTextReaderIsNamespaceDecl)
    DATEBOOK_XML_SYMBOL(textReaderConstLocalName, xmlTextReaderConstLocalName)
    DATEBOOK_XML_SYMBOL(textReaderConstNamespaceUri, xmlTextReaderConstNamespaceUri)
    DATEBOOK_XML_SYMBOL(textReaderConstValue, xmlTextReaderConstValue)
    DATEBOOK_XML_SYMBOL(textReaderMoveToNextAttribute, xmlTextReaderMoveToNextAttribute)
    DATEBOOK_XML_SYMBOL(textReaderMoveToElement, xmlTextReaderMoveToElement)
    DATEBOOK_XML_SYMBOL(textReaderGetParserLineNumber, xmlTextReaderGetParserLineNumber)
    DATEBOOK_XML_SYMBOL(textReaderSetErrorHandler, xmlTextReaderSetErrorHandler)
    DATEBOOK_XML_SYMBOL(textReaderLocatorLineNumber, xmlTextReaderLocatorLineNumber)
#undef DATEBOOK_XML_SYMBOL
    api.initParser();
    state->api = api;
    state->loaded = 1;
}

/* Loads libxml2 once (function-local statics: Swift's importer does not emit a header's
   file-scope statics). */
static inline struct datebook_xml_state *datebook_xml_state(void) {
    static struct datebook_xml_state state;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&lock);
        if (!done) {
            datebook_xml_open(&state);
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    return &state;
}

/* The table, or NULL when libxml2 cannot be loaded (datebook_xml_load_error() says why). */
static inline const struct datebook_xml_api *datebook_xml(void) {
    struct datebook_xml_state *state = datebook_xml_state();
    return state->loaded ? &state->api : NULL;
}

static inline const char *datebook_xml_load_error(void) {
    return datebook_xml_state()->error;
}

/* The first error a reader reported: its message (libxml2's words) and line; count 0 when none. */
struct datebook_xml_error {
    int count;
    int line;
    char message[512];
};

static inline void datebook_xml_record_error(void *arg, const char *msg, int severity, datebook_xml_locator *locator) {
    struct datebook_xml_error *error = arg;
    /* XML_PARSER_SEVERITY_WARNING (3) and VALIDITY_WARNING (1) are not failures. */
    if (severity == 1 || severity == 3 || error->count++ > 0) return;
    const struct datebook_xml_api *api = datebook_xml();
    error->line = (api && locator) ? api->textReaderLocatorLineNumber(locator) : 0;
    snprintf(error->message, sizeof error->message, "%s", msg ? msg : "unknown error");
    size_t length = strlen(error->message);
    while (length > 0 && (error->message[length - 1] == '\n' || error->message[length - 1] == ' ')) error->message[--length] = 0;
}

/* A reader over `size` bytes (not copied: they must outlive it) whose errors go to `error`;
   NULL when libxml2 is missing or refuses the buffer. No network, no DTD loading, no entity
   substitution (options other than these stay off). */
static inline datebook_xml_reader *datebook_xml_reader_open(const char *buffer, int size, int options,
                                                            struct datebook_xml_error *error) {
    const struct datebook_xml_api *api = datebook_xml();
    if (!api) return NULL;
    api->setGenericErrorFunc(NULL, datebook_xml_ignore);
    datebook_xml_reader *reader = api->readerForMemory(buffer, size, NULL, NULL, options);
    if (reader) api->textReaderSetErrorHandler(reader, datebook_xml_record_error, error);
    return reader;
}

static inline void datebook_xml_reader_free(datebook_xml_reader *reader) {
    const struct datebook_xml_api *api = datebook_xml();
    if (api && reader) api->freeTextReader(reader);
}

/* One wrapper per reader call (Swift cannot call through the table's optional pointers without
   unwrapping each); a reader exists only when the table does. */
static inline int datebook_xml_read(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderRead(r) : -1; }
static inline int datebook_xml_node_type(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderNodeType(r) : -1; }
static inline int datebook_xml_depth(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderDepth(r) : -1; }
static inline int datebook_xml_is_empty_element(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderIsEmptyElement(r) : -1; }
static inline int datebook_xml_is_namespace_decl(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderIsNamespaceDecl(r) : -1; }
static inline const char *datebook_xml_local_name(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? (const char *)a->textReaderConstLocalName(r) : NULL; }
static inline const char *datebook_xml_namespace_uri(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? (const char *)a->textReaderConstNamespaceUri(r) : NULL; }
static inline const char *datebook_xml_value(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? (const char *)a->textReaderConstValue(r) : NULL; }
static inline int datebook_xml_next_attribute(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderMoveToNextAttribute(r) : -1; }
static inline int datebook_xml_move_to_element(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderMoveToElement(r) : -1; }
static inline int datebook_xml_line(datebook_xml_reader *r) { const struct datebook_xml_api *a = datebook_xml(); return a ? a->textReaderGetParserLineNumber(r) : 0; }

#endif
