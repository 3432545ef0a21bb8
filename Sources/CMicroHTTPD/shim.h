#ifndef MEDIAINDEX_CMICROHTTPD_SHIM_H
#define MEDIAINDEX_CMICROHTTPD_SHIM_H
// libmicrohttpd: the embedded HTTP server. Swift cannot call C's variadic functions, so the
// few the server needs are wrapped here with fixed arguments.
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Starts a daemon on `address` (IPv4 or IPv6) with one thread per connection: at most
/// `connection_limit` connections, `per_address_limit` of them from one client address,
/// `timeout_seconds` of inactivity per connection, `memory_limit` bytes per connection for
/// the request's head and its parsed fields. `uri_logger` sees each request target before
/// it is decoded (its result becomes the request's context); `notify` sees each
/// connection start and close. Wraps MHD_start_daemon.
static inline struct MHD_Daemon *mediaindex_mhd_start(
    const struct sockaddr *address, int is_ipv6, unsigned int connection_limit, unsigned int per_address_limit,
    unsigned int timeout_seconds, size_t memory_limit,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *(*uri_logger)(void *, const char *, struct MHD_Connection *),
    MHD_NotifyConnectionCallback notify, void *context)
{
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    if (is_ipv6) flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_logger, context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, context,
                            MHD_OPTION_END);
}

/// The socket of a connection, or -1. Wraps MHD_get_connection_info.
static inline int mediaindex_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// The port a daemon listens on (the one the kernel chose for port 0). Wraps MHD_get_daemon_info.
static inline uint16_t mediaindex_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// The peer address of a connection, or NULL. Wraps MHD_get_connection_info.
static inline const struct sockaddr *mediaindex_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}
/// MHD_SIZE_UNKNOWN and MHD_CONTENT_READER_END_OF_STREAM, which Swift cannot import (cast macros).
static const uint64_t mediaindex_mhd_size_unknown = MHD_SIZE_UNKNOWN;
static const ssize_t mediaindex_mhd_end_of_stream = MHD_CONTENT_READER_END_OF_STREAM;
#endif
