// GNU libmicrohttpd (Debian's libmicrohttpd-dev), the relay's HTTP server. MHD_start_daemon and
// MHD_get_connection_info are variadic, which Swift cannot call: fixed-argument wrappers.
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// The relay's limits, handed to MHD as options.
struct cmhd_limits {
    unsigned int connection_limit;       // MHD_OPTION_CONNECTION_LIMIT
    unsigned int per_address_limit;      // MHD_OPTION_PER_IP_CONNECTION_LIMIT (0: none, behind a proxy)
    unsigned int timeout_seconds;        // MHD_OPTION_CONNECTION_TIMEOUT: idle connections closed
    size_t memory_limit;                 // MHD_OPTION_CONNECTION_MEMORY_LIMIT: per connection, headers included
    size_t thread_stack_size;            // MHD_OPTION_THREAD_STACK_SIZE: one thread per connection
};

/// Starts a daemon with one thread per connection on `address` (IPv4 or IPv6).
static inline struct MHD_Daemon *cmhd_start(const struct sockaddr *address, int ipv6, struct cmhd_limits limits,
                                            MHD_AccessHandlerCallback handler, void *handler_context,
                                            MHD_RequestCompletedCallback completed, void *completed_context,
                                            MHD_NotifyConnectionCallback connections, void *connections_context) {
    // MHD_USE_AUTO: poll() rather than select(), whose descriptor sets stop at 1024 connections.
    // No MHD_USE_ERROR_LOG: a line on stderr for every malformed request would let anyone fill the log.
    unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
    if (ipv6) flags |= MHD_USE_IPv6;
    uint16_t port = ipv6 ? ntohs(((const struct sockaddr_in6 *)address)->sin6_port) : ntohs(((const struct sockaddr_in *)address)->sin_port);
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_CONNECTION_LIMIT, limits.connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, limits.timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.memory_limit,
                            MHD_OPTION_THREAD_STACK_SIZE, limits.thread_stack_size,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, connections, connections_context,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (for `--listen 127.0.0.1:0`), 0 when unknown.
static inline uint16_t cmhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// The client's address as text into `buffer` ("" when unknown).
static inline void cmhd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    buffer[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size);
    else if (address->sa_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer, (socklen_t)size);
}

/// The connection's socket, -1 when unknown.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// Whether a connection notification says it started (else: it closed).
static inline int cmhd_connection_started(enum MHD_ConnectionNotificationCode code) { return code == MHD_CONNECTION_NOTIFY_STARTED; }

static inline ssize_t cmhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline uint64_t cmhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

// MHD's enums are closed C enums Swift renames: the values the relay uses, by their C names.
static inline enum MHD_Result cmhd_yes(void) { return MHD_YES; }
static inline enum MHD_Result cmhd_no(void) { return MHD_NO; }

/// A response holding a copy of `size` bytes at `data`.
static inline struct MHD_Response *cmhd_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

/// A request header's value, NULL when absent.
static inline const char *cmhd_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}
