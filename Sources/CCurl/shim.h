#ifndef DATEBOOK_CCURL_SHIM_H
#define DATEBOOK_CCURL_SHIM_H

/* Handles import as distinct OpaquePointers instead of untyped void pointers. */
#define CURL_STRICTER 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

/* libcurl is opened on first use, not linked: its dependency tree (OpenSSL, GnuTLS, Kerberos,
   LDAP, SSH, RTMP, ~30 libraries) cost every datebook process ~7 ms and 15M instructions of
   loading and symbol binding at start, for the commands that never send anything. Swift calls
   these datebook_curl_* functions; each resolves through a table filled on first use.
   Without libcurl (dlopen fails) they fail like an out-of-memory libcurl: NULL handles and
   CURLE_FAILED_INIT, and datebook_curl_load_error() says why. */
struct datebook_curl_api {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_version) *version;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_reset) *easy_reset;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
    __typeof__(curl_multi_init) *multi_init;
    __typeof__(curl_multi_cleanup) *multi_cleanup;
    __typeof__(curl_multi_add_handle) *multi_add_handle;
    __typeof__(curl_multi_remove_handle) *multi_remove_handle;
    __typeof__(curl_multi_perform) *multi_perform;
    __typeof__(curl_multi_poll) *multi_poll;
    __typeof__(curl_multi_wakeup) *multi_wakeup;
    __typeof__(curl_multi_info_read) *multi_info_read;
    __typeof__(curl_multi_setopt) *multi_setopt;
};

/* What loading found: the table, or why there is none. */
struct datebook_curl_state {
    struct datebook_curl_api api;
    int loaded;
    char error[256];
};

static inline void datebook_curl_open(struct datebook_curl_state *state) {
    void *library = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(state->error, sizeof state->error, "%s", why ? why : "libcurl.so.4 not found");
        return;
    }
    struct datebook_curl_api api;
#define DATEBOOK_CURL_SYMBOL(field) \
    if (!(*(void **)&api.field = dlsym(library, "curl_" #field))) { \
        snprintf(state->error, sizeof state->error, "libcurl.so.4 has no %s", "curl_" #field); \
        return; \
    }
    DATEBOOK_CURL_SYMBOL(global_init)
    DATEBOOK_CURL_SYMBOL(version)
    DATEBOOK_CURL_SYMBOL(easy_strerror)
    DATEBOOK_CURL_SYMBOL(easy_init)
    DATEBOOK_CURL_SYMBOL(easy_cleanup)
    DATEBOOK_CURL_SYMBOL(easy_reset)
    DATEBOOK_CURL_SYMBOL(easy_perform)
    DATEBOOK_CURL_SYMBOL(easy_setopt)
    DATEBOOK_CURL_SYMBOL(easy_getinfo)
    DATEBOOK_CURL_SYMBOL(slist_append)
    DATEBOOK_CURL_SYMBOL(slist_free_all)
    DATEBOOK_CURL_SYMBOL(multi_init)
    DATEBOOK_CURL_SYMBOL(multi_cleanup)
    DATEBOOK_CURL_SYMBOL(multi_add_handle)
    DATEBOOK_CURL_SYMBOL(multi_remove_handle)
    DATEBOOK_CURL_SYMBOL(multi_perform)
    DATEBOOK_CURL_SYMBOL(multi_poll)
    DATEBOOK_CURL_SYMBOL(multi_wakeup)
    DATEBOOK_CURL_SYMBOL(multi_info_read)
    DATEBOOK_CURL_SYMBOL(multi_setopt)
#undef DATEBOOK_CURL_SYMBOL
    state->api = api;
    state->loaded = 1;
}

/* Loads libcurl once. The state lives in function-local statics: Swift's importer does not emit
   a header's file-scope statics. Each object file that calls these has its own copy (and its own
   dlopen of the same, reference-counted library), which costs nothing. */
static inline struct datebook_curl_state *datebook_curl_state(void) {
    static struct datebook_curl_state state;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&lock);
        if (!done) {
            datebook_curl_open(&state);
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    return &state;
}

/* The table, or NULL when libcurl cannot be loaded. */
static inline const struct datebook_curl_api *datebook_curl(void) {
    struct datebook_curl_state *state = datebook_curl_state();
    return state->loaded ? &state->api : NULL;
}

/* Why libcurl could not be loaded ("" when it was). */
static inline const char *datebook_curl_load_error(void) {
    return datebook_curl_state()->error;
}

static inline CURLcode datebook_curl_global_init(long flags) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->global_init(flags) : CURLE_FAILED_INIT;
}
static inline const char *datebook_curl_version(void) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->version() : NULL;
}
static inline const char *datebook_curl_easy_strerror(CURLcode code) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_strerror(code) : datebook_curl_load_error();
}
static inline CURL *datebook_curl_easy_init(void) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_init() : NULL;
}
static inline void datebook_curl_easy_cleanup(CURL *handle) {
    const struct datebook_curl_api *api = datebook_curl();
    if (api) api->easy_cleanup(handle);
}
static inline void datebook_curl_easy_reset(CURL *handle) {
    const struct datebook_curl_api *api = datebook_curl();
    if (api) api->easy_reset(handle);
}
static inline CURLcode datebook_curl_easy_perform(CURL *handle) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_perform(handle) : CURLE_FAILED_INIT;
}
static inline struct curl_slist *datebook_curl_slist_append(struct curl_slist *list, const char *text) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->slist_append(list, text) : NULL;
}
static inline void datebook_curl_slist_free_all(struct curl_slist *list) {
    const struct datebook_curl_api *api = datebook_curl();
    if (api) api->slist_free_all(list);
}
static inline CURLM *datebook_curl_multi_init(void) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_init() : NULL;
}
static inline CURLMcode datebook_curl_multi_cleanup(CURLM *multi) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_cleanup(multi) : CURLM_INTERNAL_ERROR;
}
static inline CURLMcode datebook_curl_multi_add_handle(CURLM *multi, CURL *handle) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_add_handle(multi, handle) : CURLM_INTERNAL_ERROR;
}
static inline CURLMcode datebook_curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_remove_handle(multi, handle) : CURLM_INTERNAL_ERROR;
}
static inline CURLMcode datebook_curl_multi_perform(CURLM *multi, int *running) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_perform(multi, running) : CURLM_INTERNAL_ERROR;
}
static inline CURLMcode datebook_curl_multi_poll(CURLM *multi, struct curl_waitfd extra[], unsigned int count,
                                                 int timeout, int *ready) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_poll(multi, extra, count, timeout, ready) : CURLM_INTERNAL_ERROR;
}
static inline CURLMcode datebook_curl_multi_wakeup(CURLM *multi) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_wakeup(multi) : CURLM_INTERNAL_ERROR;
}
static inline CURLMsg *datebook_curl_multi_info_read(CURLM *multi, int *left) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_info_read(multi, left) : NULL;
}

/* Variadic curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt cannot be
   called from Swift: one typed wrapper per argument type. */

typedef size_t (*datebook_curl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

static inline CURLcode datebook_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_writefunction(CURL *handle, datebook_curl_data_callback callback) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_headerfunction(CURL *handle, datebook_curl_data_callback callback) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_setopt_readfunction(CURL *handle, datebook_curl_data_callback callback) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_setopt(handle, CURLOPT_READFUNCTION, callback) : CURLE_FAILED_INIT;
}

static inline CURLcode datebook_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}
static inline CURLcode datebook_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}

static inline CURLMcode datebook_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    const struct datebook_curl_api *api = datebook_curl();
    return api ? api->multi_setopt(multi, option, value) : CURLM_INTERNAL_ERROR;
}

/* Macros that do not import. */
static const long datebook_CURL_GLOBAL_ALL = CURL_GLOBAL_ALL;
static const size_t datebook_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int datebook_CURL_ERROR_SIZE = CURL_ERROR_SIZE;

#endif
