// libmicrohttpd: the web app's HTTP server. Its start and connection-information calls are
// variadic, which Swift cannot call, so the few uses puck-web makes of them are written here
// once; the rest of the API is called from Swift (PuckWeb/HTTP/HTTPServer.swift).
#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

// libmicrohttpd's own messages (a refused connection, a TLS failure) on stderr with a syslog
// level prefix, as every puck-web line has, so journald files them as warnings.
static inline void puck_mhd_log(void *context, const char *format, va_list arguments) {
  (void)context;
  char line[512];
  vsnprintf(line, sizeof line, format, arguments);
  size_t length = strlen(line);
  while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = '\0';
  fprintf(stderr, "<4>puck-web: libmicrohttpd: %s\n", line);
}

// What puck_mhd_start needs: where to listen, the limits, and the TLS pair (PEM text).
struct puck_mhd_settings {
  // NULL: every IPv6 and IPv4 address (IPv4 only where the kernel has no IPv6); otherwise an
  // IPv4 or IPv6 address literal.
  const char *address;
  uint16_t port;
  unsigned int connection_limit;
  unsigned int per_address_limit;
  unsigned int timeout_seconds;
  size_t memory_limit;
  // Both NULL: plain HTTP.
  const char *tls_key;
  const char *tls_certificate;
  // Told of each connection opened and closed (the request deadlines).
  MHD_NotifyConnectionCallback notify_connection;
  void *notify_connection_context;
};

// MHD_start_daemon with one internal polling thread (epoll): every handler call comes from
// that one thread, which suspends a connection while its request is answered elsewhere and is
// woken when it is resumed (MHD_ALLOW_SUSPEND_RESUME). NULL when the address does not parse or
// the socket cannot be bound.
static inline struct MHD_Daemon *puck_mhd_start(
    const struct puck_mhd_settings *settings, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context) {
  unsigned int flags =
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
  if (settings->tls_key != NULL && settings->tls_certificate != NULL) flags |= MHD_USE_TLS;
  struct sockaddr_in address4;
  struct sockaddr_in6 address6;
  const struct sockaddr *address = NULL;
  memset(&address4, 0, sizeof address4);
  memset(&address6, 0, sizeof address6);
  if (settings->address != NULL) {
    if (inet_pton(AF_INET, settings->address, &address4.sin_addr) == 1) {
      address4.sin_family = AF_INET;
      address4.sin_port = htons(settings->port);
      address = (const struct sockaddr *)&address4;
    } else if (inet_pton(AF_INET6, settings->address, &address6.sin6_addr) == 1) {
      address6.sin6_family = AF_INET6;
      address6.sin6_port = htons(settings->port);
      address = (const struct sockaddr *)&address6;
      flags |= MHD_USE_IPv6;
    } else {
      return NULL;
    }
  }
  struct MHD_OptionItem options[] = {
    {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)puck_mhd_log, NULL},
    {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)settings->connection_limit, NULL},
    {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)settings->per_address_limit, NULL},
    {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)settings->timeout_seconds, NULL},
    {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->memory_limit, NULL},
    {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_context},
    {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)settings->notify_connection, settings->notify_connection_context},
    {MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL},
    {address != NULL ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_END, 0, (void *)address},
    {MHD_OPTION_END, 0, NULL},
    {MHD_OPTION_END, 0, NULL},
    {MHD_OPTION_END, 0, NULL},
  };
  size_t count = address != NULL ? 9 : 8;
  if (flags & MHD_USE_TLS) {
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)settings->tls_key};
    options[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)settings->tls_certificate};
  }
  if (address != NULL) {
    return MHD_start_daemon(flags, settings->port, NULL, NULL, handler, handler_context, MHD_OPTION_ARRAY,
                            options, MHD_OPTION_END);
  }
  struct MHD_Daemon *daemon = MHD_start_daemon(flags | MHD_USE_DUAL_STACK, settings->port, NULL, NULL, handler,
                                               handler_context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
  if (daemon != NULL) return daemon;
  // No IPv6 in this kernel (ipv6.disable=1): every IPv4 address.
  return MHD_start_daemon(flags, settings->port, NULL, NULL, handler, handler_context, MHD_OPTION_ARRAY, options,
                          MHD_OPTION_END);
}

// The peer's address as text into `text` (IPv4 as dotted decimal, an IPv4-mapped IPv6 address
// too), and into `key` what the looser login limit counts under: the IPv4 address, or the /64 an IPv6
// address is in (a host may use any address of its /64). Both of `size` bytes; empty strings
// when the address cannot be had.
static inline void puck_mhd_client_address(struct MHD_Connection *connection, char *text, char *key, size_t size) {
  text[0] = '\0';
  key[0] = '\0';
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, (socklen_t)size);
    snprintf(key, size, "%s", text);
  } else if (address->sa_family == AF_INET6) {
    const struct in6_addr *six = &((const struct sockaddr_in6 *)address)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(six)) {
      inet_ntop(AF_INET, &six->s6_addr[12], text, (socklen_t)size);
      snprintf(key, size, "%s", text);
    } else {
      inet_ntop(AF_INET6, six, text, (socklen_t)size);
      struct in6_addr network = *six;
      memset(&network.s6_addr[8], 0, 8);
      char prefix[INET6_ADDRSTRLEN];
      if (inet_ntop(AF_INET6, &network, prefix, sizeof prefix) != NULL) snprintf(key, size, "%s/64", prefix);
    }
  }
}

// The connection's socket; -1 when it cannot be had.
static inline int puck_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

// A response holding a copy of `length` bytes of `body` (NULL when length is 0).
static inline struct MHD_Response *puck_mhd_response(const void *body, size_t length) {
#if MHD_VERSION >= 0x00097701
  return MHD_create_response_from_buffer_copy(length, body);
#else
  return MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
#endif
}

// One malloc arena for every thread of the web process: glibc gives each thread that allocates
// its own (the request workers would hold about 120 KiB resident each), for a load that one
// arena serves without contention. Swift's Glibc module does not export mallopt (malloc.h).
static inline void puck_web_single_malloc_arena(void) { mallopt(M_ARENA_MAX, 1); }
