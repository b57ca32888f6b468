#ifndef DATEBOOK_PQ_H
#define DATEBOOK_PQ_H

/* Debian puts libpq-fe.h in /usr/include/postgresql; its own includes are relative to it. */
#include <postgresql/libpq-fe.h>

#include "datebook_libraries.h"

/* libpq, opened on first use (datebook_libraries.h): only a PostgreSQL store uses it. Swift calls
   through the table datebook_pq() returns (NULL when libpq cannot be loaded;
   datebook_library_problem(DATEBOOK_LIBRARY_PQ) says why). X(field, symbol), typed by libpq-fe.h. */
#define DATEBOOK_PQ_FUNCTIONS(X) \
    X(connectdb, PQconnectdb) X(status, PQstatus) X(errorMessage, PQerrorMessage) X(finish, PQfinish) \
    X(host, PQhost) X(port, PQport) X(exec, PQexec) X(execParams, PQexecParams) X(prepare, PQprepare) \
    X(execPrepared, PQexecPrepared) X(resultStatus, PQresultStatus) X(resultErrorMessage, PQresultErrorMessage) \
    X(resultErrorField, PQresultErrorField) X(clear, PQclear) X(ntuples, PQntuples) X(nfields, PQnfields) \
    X(getvalue, PQgetvalue) X(getlength, PQgetlength) X(getisnull, PQgetisnull) X(cmdTuples, PQcmdTuples) \
    X(putCopyData, PQputCopyData) X(putCopyEnd, PQputCopyEnd) X(getResult, PQgetResult) \
    X(setNoticeProcessor, PQsetNoticeProcessor) X(conninfoParse, PQconninfoParse) X(conninfoFree, PQconninfoFree) \
    X(freemem, PQfreemem) X(reset, PQreset) X(socket, PQsocket) X(consumeInput, PQconsumeInput) X(notifies, PQnotifies) \
    X(sendQueryParams, PQsendQueryParams) X(enterPipelineMode, PQenterPipelineMode) \
    X(exitPipelineMode, PQexitPipelineMode) X(pipelineSync, PQpipelineSync) X(pipelineStatus, PQpipelineStatus)

struct datebook_pq_api {
    DATEBOOK_PQ_FUNCTIONS(DATEBOOK_LIBRARY_FIELD)
};

/* The table, or NULL when libpq cannot be loaded. */
const struct datebook_pq_api *datebook_pq(void);

/* A notice processor that drops server notices ("schema already exists, skipping"): libpq's
   default prints them on stderr, and only the CLI prints. */
static inline void datebook_pq_ignore_notice(void *arg, const char *message) {
    (void)arg; (void)message;
}
static inline PQnoticeProcessor datebook_pq_quiet(void) {
    return datebook_pq_ignore_notice;
}

#endif
