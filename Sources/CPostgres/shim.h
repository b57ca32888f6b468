#ifndef DATEBOOK_CPOSTGRES_SHIM_H
#define DATEBOOK_CPOSTGRES_SHIM_H

/* Debian puts libpq-fe.h in /usr/include/postgresql; its own includes are relative to it. */
#include <postgresql/libpq-fe.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* libpq is opened on first use, not linked, like libcurl (CCurl/shim.h): its dependencies
   (OpenSSL, Kerberos, LDAP) would cost every datebook process start-up time, and only a
   PostgreSQL store uses it. Swift calls through the table datebook_pq() returns (NULL when
   libpq cannot be loaded; datebook_pq_load_error() says why). */
struct datebook_pq_api {
    __typeof__(PQconnectdb) *connectdb;
    __typeof__(PQstatus) *status;
    __typeof__(PQerrorMessage) *errorMessage;
    __typeof__(PQfinish) *finish;
    __typeof__(PQhost) *host;
    __typeof__(PQport) *port;
    __typeof__(PQexec) *exec;
    __typeof__(PQexecParams) *execParams;
    __typeof__(PQprepare) *prepare;
    __typeof__(PQexecPrepared) *execPrepared;
    __typeof__(PQresultStatus) *resultStatus;
    __typeof__(PQresultErrorMessage) *resultErrorMessage;
    __typeof__(PQresultErrorField) *resultErrorField;
    __typeof__(PQclear) *clear;
    __typeof__(PQntuples) *ntuples;
    __typeof__(PQnfields) *nfields;
    __typeof__(PQgetvalue) *getvalue;
    __typeof__(PQgetlength) *getlength;
    __typeof__(PQgetisnull) *getisnull;
    __typeof__(PQcmdTuples) *cmdTuples;
    __typeof__(PQputCopyData) *putCopyData;
    __typeof__(PQputCopyEnd) *putCopyEnd;
    __typeof__(PQgetResult) *getResult;
    __typeof__(PQsetNoticeProcessor) *setNoticeProcessor;
    __typeof__(PQconninfoParse) *conninfoParse;
    __typeof__(PQconninfoFree) *conninfoFree;
    __typeof__(PQfreemem) *freemem;
    __typeof__(PQreset) *reset;
    __typeof__(PQsocket) *socket;
    __typeof__(PQconsumeInput) *consumeInput;
    __typeof__(PQnotifies) *notifies;
};

struct datebook_pq_state {
    struct datebook_pq_api api;
    int loaded;
    char error[256];
};

static inline void datebook_pq_open(struct datebook_pq_state *state) {
    void *library = dlopen("libpq.so.5", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(state->error, sizeof state->error, "%s", why ? why : "libpq.so.5 not found");
        return;
    }
    struct datebook_pq_api api;
#define DATEBOOK_PQ_SYMBOL(field, name) \
    if (!(*(void **)&api.field = dlsym(library, #name))) { \
        snprintf(state->error, sizeof state->error, "libpq.so.5 has no %s", #name); \
        return; \
    }
    DATEBOOK_PQ_SYMBOL(connectdb, PQconnectdb)
    DATEBOOK_PQ_SYMBOL(status, PQstatus)
    DATEBOOK_PQ_SYMBOL(errorMessage, PQerrorMessage)
    DATEBOOK_PQ_SYMBOL(finish, PQfinish)
    DATEBOOK_PQ_SYMBOL(host, PQhost)
    DATEBOOK_PQ_SYMBOL(port, PQport)
    DATEBOOK_PQ_SYMBOL(exec, PQexec)
    DATEBOOK_PQ_SYMBOL(execParams, PQexecParams)
    DATEBOOK_PQ_SYMBOL(prepare, PQprepare)
    DATEBOOK_PQ_SYMBOL(execPrepared, PQexecPrepared)
    DATEBOOK_PQ_SYMBOL(resultStatus, PQresultStatus)
    DATEBOOK_PQ_SYMBOL(resultErrorMessage, PQresultErrorMessage)
    DATEBOOK_PQ_SYMBOL(resultErrorField, PQresultErrorField)
    DATEBOOK_PQ_SYMBOL(clear, PQclear)
    DATEBOOK_PQ_SYMBOL(ntuples, PQntuples)
    DATEBOOK_PQ_SYMBOL(nfields, PQnfields)
    DATEBOOK_PQ_SYMBOL(getvalue, PQgetvalue)
    DATEBOOK_PQ_SYMBOL(getlength, PQgetlength)
    DATEBOOK_PQ_SYMBOL(getisnull, PQgetisnull)
    DATEBOOK_PQ_SYMBOL(cmdTuples, PQcmdTuples)
    DATEBOOK_PQ_SYMBOL(putCopyData, PQputCopyData)
    DATEBOOK_PQ_SYMBOL(putCopyEnd, PQputCopyEnd)
    DATEBOOK_PQ_SYMBOL(getResult, PQgetResult)
    DATEBOOK_PQ_SYMBOL(setNoticeProcessor, PQsetNoticeProcessor)
    DATEBOOK_PQ_SYMBOL(conninfoParse, PQconninfoParse)
    DATEBOOK_PQ_SYMBOL(conninfoFree, PQconninfoFree)
    DATEBOOK_PQ_SYMBOL(freemem, PQfreemem)
    DATEBOOK_PQ_SYMBOL(reset, PQreset)
    DATEBOOK_PQ_SYMBOL(socket, PQsocket)
    DATEBOOK_PQ_SYMBOL(consumeInput, PQconsumeInput)
    DATEBOOK_PQ_SYMBOL(notifies, PQnotifies)
#undef DATEBOOK_PQ_SYMBOL
    state->api = api;
    state->loaded = 1;
}

/* Loads libpq once (function-local statics: the importer does not emit file-scope ones). */
static inline struct datebook_pq_state *datebook_pq_state(void) {
    static struct datebook_pq_state state;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int done;
    if (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&lock);
        if (!done) {
            datebook_pq_open(&state);
            __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&lock);
    }
    return &state;
}

/* The table, or NULL when libpq cannot be loaded. */
static inline const struct datebook_pq_api *datebook_pq(void) {
    struct datebook_pq_state *state = datebook_pq_state();
    return state->loaded ? &state->api : NULL;
}

/* Why libpq could not be loaded ("" when it was). */
static inline const char *datebook_pq_load_error(void) {
    return datebook_pq_state()->error;
}

/* A notice processor that drops server notices ("schema already exists, skipping"): libpq's
   default prints them on stderr, and only the CLI prints. */
static inline void datebook_pq_ignore_notice(void *arg, const char *message) {
    (void)arg; (void)message;
}
static inline PQnoticeProcessor datebook_pq_quiet(void) {
    return datebook_pq_ignore_notice;
}
#endif
