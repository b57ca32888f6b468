#ifndef DATEBOOK_MICROHTTPD_H
#define DATEBOOK_MICROHTTPD_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

#include "datebook_libraries.h"

/* libmicrohttpd, opened on first use (datebook_libraries.h): only `serve` and `run --serve` use it.
   Swift calls the cmhd_* functions below; each goes through the table cmhd() returns. Without the
   library they fail (NULL daemon, MHD_NO) and datebook_library_problem(DATEBOOK_LIBRARY_MICROHTTPD)
   says why. X(field, symbol), typed by microhttpd.h. */
#define CMHD_FUNCTIONS(X) \
    X(start_daemon, MHD_start_daemon) X(stop_daemon, MHD_stop_daemon) \
    X(get_daemon_info, MHD_get_daemon_info) X(get_connection_info, MHD_get_connection_info) \
    X(get_connection_values, MHD_get_connection_values) X(create_response_from_buffer, MHD_create_response_from_buffer) \
    X(add_response_header, MHD_add_response_header) X(queue_response, MHD_queue_response) \
    X(destroy_response, MHD_destroy_response) X(create_response_from_callback, MHD_create_response_from_callback) \
    X(set_response_options, MHD_set_response_options)

struct cmhd_api {
    CMHD_FUNCTIONS(DATEBOOK_LIBRARY_FIELD)
};

/* The table, or NULL when libmicrohttpd cannot be loaded. */
const struct cmhd_api *cmhd(void);

/// The daemon's settings, passed to `cmhd_start` (MHD_start_daemon is variadic).
typedef struct cmhd_settings {
    const struct sockaddr *address;      /* where to listen (IPv4 or IPv6) */
    unsigned int connection_timeout;     /* seconds of silence before a connection is closed */
    size_t connection_memory_limit;      /* per connection: request line + headers must fit */
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int per_client_connection_limit; /* connections one client address may hold (0: no limit) */
    int ipv6;                            /* address is a sockaddr_in6 */
} cmhd_settings;

/* No MHD_OPTION_LISTENING_ADDRESS_REUSE: with 1 it sets SO_REUSEPORT, and a second server on the
   same port then starts silently and the kernel splits the connections between the two. The default
   (SO_REUSEADDR only) lets a restart bind at once and a second listener fail with EADDRINUSE. */

static inline int cmhd_hex(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/// Percent-decodes a URL or a query value in place as libmicrohttpd's own unescaping does, except
/// `%2F` and `%25`, which stay encoded: a path segment may then hold `/` or `%` (an event id from
/// a feed), and the server decodes them per segment (`Routes`) and in query values.
static size_t cmhd_unescape_keeping_slash(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    char *read = text, *write = text;
    while (*read) {
        int high = read[0] == '%' ? cmhd_hex(read[1]) : -1;
        int low = high >= 0 ? cmhd_hex(read[2]) : -1;
        if (high >= 0 && low >= 0 && high * 16 + low != '/' && high * 16 + low != '%') {
            *write++ = (char)(high * 16 + low);
            read += 3;
        } else {
            *write++ = *read++;
        }
    }
    *write = 0;
    return (size_t)(write - text);
}

/// Starts a daemon polling with epoll on its own pool of threads; `accept` decides on each new connection.
static inline struct MHD_Daemon *cmhd_start(const cmhd_settings *settings, MHD_AcceptPolicyCallback accept, void *accept_context,
                                            MHD_AccessHandlerCallback handler, void *handler_context,
                                            MHD_RequestCompletedCallback completed, void *completed_context,
                                            MHD_NotifyConnectionCallback connection, void *connection_context) {
    const struct cmhd_api *api = cmhd();
    if (!api) return NULL;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | (settings->ipv6 ? MHD_USE_IPv6 : 0);
    return api->start_daemon(flags, 0, accept, accept_context, handler, handler_context,
                             MHD_OPTION_SOCK_ADDR, settings->address,
                             MHD_OPTION_CONNECTION_TIMEOUT, settings->connection_timeout,
                             MHD_OPTION_CONNECTION_MEMORY_LIMIT, settings->connection_memory_limit,
                             MHD_OPTION_THREAD_POOL_SIZE, settings->thread_pool_size,
                             MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
                             MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_client_connection_limit,
                             /* 1: an HTTP/1.1 request without Host, or a space in the URL or a header name, is refused */
                             MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
                             MHD_OPTION_UNESCAPE_CALLBACK, cmhd_unescape_keeping_slash, (void *)NULL,
                             MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                             MHD_OPTION_NOTIFY_CONNECTION, connection, connection_context,
                             MHD_OPTION_END);
}

static inline void cmhd_stop(struct MHD_Daemon *daemon) {
    const struct cmhd_api *api = cmhd();
    if (api) api->stop_daemon(daemon);
}

/// The port the daemon is bound to (the one the kernel chose for port 0).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const struct cmhd_api *api = cmhd();
    const union MHD_DaemonInfo *info = api ? api->get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
    return info ? info->port : 0;
}

/// The socket of a connection, or -1.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const struct cmhd_api *api = cmhd();
    const union MHD_ConnectionInfo *info = api ? api->get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    return info ? info->connect_fd : -1;
}

/// The connection's socket context (set by the connection callback), or NULL.
static inline void *cmhd_socket_context(struct MHD_Connection *connection) {
    const struct cmhd_api *api = cmhd();
    const union MHD_ConnectionInfo *info = api ? api->get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;
    return info ? info->socket_context : NULL;
}

/// 1 when the peer of a connection is on loopback (127.0.0.0/8, ::1 or ::ffff:127.x.x.x).
static inline int cmhd_peer_is_loopback(struct MHD_Connection *connection) {
    const struct cmhd_api *api = cmhd();
    const union MHD_ConnectionInfo *info = api ? api->get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS) : NULL;
    if (!info || !info->client_addr) return 0;
    if (info->client_addr->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)info->client_addr;
        return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    }
    if (info->client_addr->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)info->client_addr;
        if (IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr)) return 1;
        return IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr) && v6->sin6_addr.s6_addr[12] == 127;
    }
    return 0;
}

/// The peer's address as text (`127.0.0.1`, `::1`) into `buffer`; "" when unknown.
static inline void cmhd_peer_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const struct cmhd_api *api = cmhd();
    if (size) buffer[0] = 0;
    const union MHD_ConnectionInfo *info = api ? api->get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS) : NULL;
    if (!info || !info->client_addr || size < INET6_ADDRSTRLEN) return;
    if (info->client_addr->sa_family == AF_INET)
        (void)inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, buffer, (socklen_t)size);
    else if (info->client_addr->sa_family == AF_INET6)
        (void)inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, buffer, (socklen_t)size);
}

/// Calls `iterator` for each request header (`query` 0) or query argument (`query` 1).
static inline void cmhd_values(struct MHD_Connection *connection, int query, MHD_KeyValueIterator iterator, void *context) {
    const struct cmhd_api *api = cmhd();
    if (api) (void)api->get_connection_values(connection, query ? MHD_GET_ARGUMENT_KIND : MHD_HEADER_KIND, iterator, context);
}

static inline int cmhd_is_connection_start(enum MHD_ConnectionNotificationCode code) { return code == MHD_CONNECTION_NOTIFY_STARTED; }

/* Set while a libmicrohttpd callback runs on this thread: MHD_stop_daemon joins the daemon's threads,
   and called on one of them it aborts the process ("Failed to join a thread"). Only WebServer.swift
   calls these (a static inline function's static is one per object file). */
static inline int *cmhd_callback_flag(void) {
    static __thread int inside;
    return &inside;
}
static inline int cmhd_enter_callback(void) { int *flag = cmhd_callback_flag(); int was = *flag; *flag = 1; return was; }
static inline void cmhd_leave_callback(int was) { *cmhd_callback_flag() = was; }
static inline int cmhd_in_callback(void) { return *cmhd_callback_flag(); }

static inline ssize_t cmhd_no_body(void *context, uint64_t position, char *buffer, size_t size) {
    (void)context; (void)position; (void)buffer; (void)size;
    return MHD_CONTENT_READER_END_OF_STREAM;
}

/// Queues a response of `status` with `count` headers and a copy of `size` bytes of `body`; for a 304,
/// `size` is the length the 200 would have (no body is sent), or SIZE_MAX when unknown.
static inline enum MHD_Result cmhd_respond(struct MHD_Connection *connection, unsigned int status,
                                           const char *const *names, const char *const *values, size_t count,
                                           const void *body, size_t size) {
    const struct cmhd_api *api = cmhd();
    if (!api) return MHD_NO;
    /* A 304 has no body, and RFC 9110 section 8.6 allows on it only the `Content-Length` the 200
       would have. libmicrohttpd 0.9.75 frames a 304 by its response's size and sends no body: a
       response of the 200's size (a callback it never calls) gives that length and keeps the
       connection. It adds `Content-Length: 0` to an empty one, and frames one of unknown size as
       chunked (a `0` chunk a 304 must not have); only as an HTTP/1.0 response of unknown size does a
       304 go out with no length, and the connection then closes (docs/serve.md, The calendar feed). */
    struct MHD_Response *response;
    if (status == MHD_HTTP_NOT_MODIFIED) {
        response = api->create_response_from_callback(size == SIZE_MAX ? MHD_SIZE_UNKNOWN : size, 1024, cmhd_no_body, NULL, NULL);
        if (response && size == SIZE_MAX) (void)api->set_response_options(response, MHD_RF_HTTP_VERSION_1_0_RESPONSE, MHD_RO_END);
    } else {
        response = api->create_response_from_buffer(size, (void *)body, MHD_RESPMEM_MUST_COPY);
    }
    if (!response) return MHD_NO;
    for (size_t i = 0; i < count; i++) (void)api->add_response_header(response, names[i], values[i]);
    enum MHD_Result result = api->queue_response(connection, status, response);
    api->destroy_response(response);
    return result;
}

static inline enum MHD_Result cmhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result cmhd_no(void) { return MHD_NO; }

#endif
