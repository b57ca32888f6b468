#ifndef DATEBOOK_CURL_H
#define DATEBOOK_CURL_H

/* Handles import as distinct OpaquePointers instead of untyped void pointers. */
#define CURL_STRICTER 1
#include <curl/curl.h>
#include <stddef.h>

#include "datebook_libraries.h"

/* libcurl, opened on first use (datebook_libraries.h). Swift calls these datebook_curl_*
   functions; each goes through the table datebook_curl() returns. Without libcurl they fail like
   an out-of-memory libcurl: NULL handles and CURLE_FAILED_INIT, and
   datebook_library_problem(DATEBOOK_LIBRARY_CURL) says why.

   The functions called, as X(field, symbol): the table's fields get the type of libcurl's own
   declaration (__typeof__), so each call is checked against curl.h. */
#define DATEBOOK_CURL_FUNCTIONS(X) \
    X(global_init, curl_global_init) X(version, curl_version) X(easy_strerror, curl_easy_strerror) \
    X(easy_init, curl_easy_init) X(easy_cleanup, curl_easy_cleanup) X(easy_reset, curl_easy_reset) \
    X(easy_perform, curl_easy_perform) X(easy_setopt, curl_easy_setopt) X(easy_getinfo, curl_easy_getinfo) \
    X(slist_append, curl_slist_append) X(slist_free_all, curl_slist_free_all) X(multi_init, curl_multi_init) \
    X(multi_cleanup, curl_multi_cleanup) X(multi_add_handle, curl_multi_add_handle) \
    X(multi_remove_handle, curl_multi_remove_handle) X(multi_perform, curl_multi_perform) X(multi_poll, curl_multi_poll) \
    X(multi_wakeup, curl_multi_wakeup) X(multi_info_read, curl_multi_info_read) X(multi_setopt, curl_multi_setopt)

struct datebook_curl_api {
    DATEBOOK_CURL_FUNCTIONS(DATEBOOK_LIBRARY_FIELD)
};

/* The table, or NULL when libcurl cannot be loaded. */
const struct datebook_curl_api *datebook_curl(void);

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
    return api ? api->easy_strerror(code) : datebook_library_problem(DATEBOOK_LIBRARY_CURL);
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
