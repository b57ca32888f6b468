#ifndef DATEBOOK_CCURL_SHIM_H
#define DATEBOOK_CCURL_SHIM_H

/* Handles import as distinct OpaquePointers instead of untyped void pointers. */
#define CURL_STRICTER 1
#include <curl/curl.h>

/* Variadic curl_easy_setopt / curl_easy_getinfo / curl_multi_setopt cannot be
   called from Swift: one typed wrapper per argument type. */

typedef size_t (*datebook_curl_data_callback)(char *buffer, size_t size, size_t nitems, void *userdata);

static inline CURLcode datebook_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode datebook_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode datebook_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode datebook_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode datebook_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode datebook_curl_easy_setopt_writefunction(CURL *handle, datebook_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode datebook_curl_easy_setopt_headerfunction(CURL *handle, datebook_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}
static inline CURLcode datebook_curl_easy_setopt_readfunction(CURL *handle, datebook_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}

static inline CURLcode datebook_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode datebook_curl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode datebook_curl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode datebook_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* Macros that do not import. */
static const long datebook_CURL_GLOBAL_ALL = CURL_GLOBAL_ALL;
static const size_t datebook_CURL_READFUNC_ABORT = CURL_READFUNC_ABORT;
static const int datebook_CURL_ERROR_SIZE = CURL_ERROR_SIZE;

#endif
