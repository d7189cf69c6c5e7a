// libmicrohttpd for the TrafficServer module. Debian package: libmicrohttpd-dev.
//
// Swift cannot call C variadic functions, so the few variadic entry points the server needs
// (MHD_start_daemon, MHD_get_daemon_info, MHD_get_connection_info,
// MHD_set_connection_option) are wrapped here with fixed arguments.
#ifndef TRAFFIC_CMICROHTTPD_SHIM_H
#define TRAFFIC_CMICROHTTPD_SHIM_H

#include <arpa/inet.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

/// The settings of a daemon started by traffic_mhd_start.
struct traffic_mhd_settings {
  /// MHD_USE_* flags.
  unsigned int flags;
  /// The address to listen on: a struct sockaddr_in, or sockaddr_in6 with MHD_USE_IPv6.
  const struct sockaddr *address;
  /// Port, used only when address is NULL.
  uint16_t port;
  /// Threads polling connections; 0 or 1 for a single internal thread.
  unsigned int thread_pool_size;
  /// Most concurrent connections.
  unsigned int connection_limit;
  /// Memory per connection for the request line, headers and buffers, bytes.
  size_t connection_memory_limit;
  /// Seconds of inactivity after which a connection is closed; 0 for never.
  unsigned int connection_timeout_seconds;
  /// Length of the listen queue.
  unsigned int listen_backlog;
};

/// The callback that sees the raw request target before it is parsed; its result becomes
/// the request's context pointer.
typedef void *(*traffic_mhd_uri_logger)(void *cls, const char *uri,
                                        struct MHD_Connection *connection);

/// The callback that decides whether to accept a connection, from the client's address.
typedef enum MHD_Result (*traffic_mhd_accept_policy)(void *cls, const struct sockaddr *address,
                                                     socklen_t length);

/// The callback told when a connection starts and when it closes.
typedef void (*traffic_mhd_connection_notifier)(void *cls, struct MHD_Connection *connection,
                                                void **socket_context,
                                                enum MHD_ConnectionNotificationCode code);

/// The text form of a socket address (IPv4 or IPv6) into buffer; "" for another family.
static inline void traffic_mhd_address_text(const struct sockaddr *address, char *buffer,
                                            size_t size) {
  buffer[0] = 0;
  if (address == NULL) return;
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer, (socklen_t)size);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer,
              (socklen_t)size);
  }
}

/// Whether a notification tells that a connection started (else that it closed).
static inline int traffic_mhd_connection_started(enum MHD_ConnectionNotificationCode code) {
  return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/// The socket of a connection, -1 when unknown.
static inline int traffic_mhd_connection_fd(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return info == NULL ? -1 : info->connect_fd;
}

/// Whether a request ended because its connection timed out.
static inline int traffic_mhd_timed_out(enum MHD_RequestTerminationCode code) {
  return code == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED;
}

/// MHD_start_daemon with the options the server uses.
static inline struct MHD_Daemon *
traffic_mhd_start(const struct traffic_mhd_settings *settings,
                  MHD_AccessHandlerCallback handler, void *handler_cls,
                  traffic_mhd_uri_logger uri_logger, void *uri_logger_cls,
                  MHD_RequestCompletedCallback completed, void *completed_cls,
                  traffic_mhd_accept_policy accept_policy,
                  traffic_mhd_connection_notifier notifier, void *guard_cls) {
  unsigned int pool = settings->thread_pool_size > 1 ? settings->thread_pool_size : 0;
  // One option list for both binds; the listening address, when given, replaces the port.
  struct MHD_OptionItem options[] = {
      {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notifier, guard_cls},
      {MHD_OPTION_THREAD_POOL_SIZE, pool, NULL},
      {MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit, NULL},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)settings->connection_memory_limit, NULL},
      {MHD_OPTION_CONNECTION_TIMEOUT, settings->connection_timeout_seconds, NULL},
      {MHD_OPTION_LISTEN_BACKLOG_SIZE, settings->listen_backlog, NULL},
      {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)uri_logger, uri_logger_cls},
      {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls},
      {settings->address != NULL ? MHD_OPTION_SOCK_ADDR : MHD_OPTION_END, 0,
       (void *)settings->address},
      {MHD_OPTION_END, 0, NULL},
  };
  return MHD_start_daemon(settings->flags, settings->address != NULL ? 0 : settings->port,
                          accept_policy, guard_cls, handler, handler_cls, MHD_OPTION_ARRAY,
                          options, MHD_OPTION_END);
}

/// The port the daemon listens on (useful after binding port 0); 0 when unknown.
static inline uint16_t traffic_mhd_bind_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

/// Writes the client's address as text ("203.0.113.7" or "2001:db8::1") into buffer;
/// an empty string when unknown.
static inline void traffic_mhd_client_address(struct MHD_Connection *connection, char *buffer,
                                              size_t size) {
  if (size == 0) return;
  buffer[0] = 0;
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, buffer,
              (socklen_t)size);
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, buffer,
              (socklen_t)size);
  }
}

/// Ends the request target's query right after its '?', so that libmicrohttpd does not
/// split the query into GET arguments in the connection's memory pool; call it from the URI
/// callback, after copying the target (the server parses the query from that copy).
///
/// libmicrohttpd 0.9.x finds the '?' before it calls the URI callback and then parses the
/// NUL-terminated text after it in place, in the connection's read buffer (it overwrites
/// that text itself while parsing). Each argument costs a list entry of the pool, so a
/// query of a few hundred short pairs exhausted a 32 KiB pool and the connection was closed
/// without any answer; with the query hidden, the server answers such a query itself (or
/// with its own 414 beyond the target limit).
static inline void traffic_mhd_hide_query(const char *uri) {
  if (uri == NULL) return;
  char *mark = strchr((char *)uri, '?');
  if (mark != NULL) mark[1] = '\0';
}

// MARK: Whether the header lines arrived as libmicrohttpd lists them
//
// libmicrohttpd 0.9.75 parses a request head in place: each line's CR LF (or bare LF) and
// the colon after a field name become NULs, and a field's name and value point into that
// buffer. Two kinds of line do not survive this verbatim, and the handler cannot tell
// them from the field list alone:
// - an obsolete folded line (RFC 9112 §5.2, a line starting with space or tab) is glued to
//   the previous field's *name* ("X-A: 1" + " b" becomes "X-Ab: 1"), in a copy elsewhere
//   in the connection's memory pool;
// - a NUL inside a value ends the value there ("a\0b" is listed as "a").
// Walking the fields in order, a verbatim head has exactly: name, one NUL (the colon),
// spaces or tabs, value, one or two NULs (the line end), the next name; after the last
// value, two to four NULs (its line end and the empty line) up to the end of the head.
// Anything else (a name moved by a fold, bytes after a NUL) means the head was not
// verbatim. Only pointers into the connection's pool are compared, and bytes are read only
// between two such pointers in increasing order (the pool is one block).
// The layout is that of 0.9.75 (Debian's package, measured); 0.9.76 and 0.9.77 changed
// the line parser and 1.0 rewrote it (refusing folded lines itself): with another version
// the check is not made, until it is measured there.

/// The walk over a head's fields (the context of traffic_mhd_head_is_verbatim's iterator).
struct traffic_mhd_head_walk {
  /// Where the previous field's value ends; NULL before the first field.
  const char *line_end;
  /// Cleared at the first field not where a verbatim line puts it.
  int verbatim;
};

/// Whether the bytes from `from` to `to` are between `least` and `most` bytes of NUL, or
/// (`colon` set) one NUL followed by spaces and tabs.
static inline int traffic_mhd_gap_is(const char *from, const char *to, size_t least,
                                     size_t most, int colon) {
  if (to < from) return 0;
  size_t count = (size_t)(to - from);
  if (count < least || count > most) return 0;
  for (size_t i = 0; i < count; i++) {
    char c = from[i];
    int expected = colon && i > 0 ? (c == ' ' || c == '\t') : c == '\0';
    if (!expected) return 0;
  }
  return 1;
}

static enum MHD_Result traffic_mhd_head_walk_field(void *cls, enum MHD_ValueKind kind,
                                                   const char *key, const char *value) {
  (void)kind;
  struct traffic_mhd_head_walk *walk = (struct traffic_mhd_head_walk *)cls;
  // The previous line ends (CR LF or LF, now NULs) where this name starts; then the colon
  // (a NUL), the whitespace libmicrohttpd skipped, and the value. A header line is at most
  // the connection's memory, far below 1 MiB.
  if (key == NULL || value == NULL ||
      (walk->line_end != NULL && !traffic_mhd_gap_is(walk->line_end, key, 1, 2, 0)) ||
      !traffic_mhd_gap_is(key + strlen(key), value, 1, 1 << 20, 1)) {
    walk->verbatim = 0;
    return MHD_NO;
  }
  walk->line_end = value + strlen(value);
  return MHD_YES;
}

/// Whether every header line of the request arrived as libmicrohttpd lists it: no
/// obsolete line folding, no NUL inside a value (see above). `method` is the method the
/// access handler received (where the head starts). Call it from the access handler's
/// first call for a request. Always 1 with a libmicrohttpd other than 0.9.75.
static inline int traffic_mhd_head_is_verbatim(struct MHD_Connection *connection,
                                               const char *method) {
#if MHD_VERSION >= 0x00097500 && MHD_VERSION < 0x00097600
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  if (info == NULL || method == NULL) return 0;
  struct traffic_mhd_head_walk walk = {NULL, 1};
  (void)MHD_get_connection_values(connection, MHD_HEADER_KIND, traffic_mhd_head_walk_field,
                                  &walk);
  if (!walk.verbatim) return 0;
  if (walk.line_end == NULL) return 1;
  // The last line's end and the empty line, up to the end of the head.
  return traffic_mhd_gap_is(walk.line_end, method + info->header_size, 2, 4, 0);
#else
  (void)connection;
  (void)method;
  return 1;
#endif
}

/// Whether the request line arrived as `method SP target SP version`: one space after the
/// method, and no NUL inside the target. libmicrohttpd 0.9.75 skips extra spaces after the
/// method and hands on a target cut at a NUL, so `GET /healthz\0x HTTP/1.1` would be
/// answered as `/healthz`. `target` is where the URI callback saw the target start,
/// `target_end` where its C string ended (read before anything is cut from it), and
/// `method` and `version` are what the access handler received. Always 1 with a
/// libmicrohttpd other than 0.9.75.
static inline int traffic_mhd_request_line_is_verbatim(const char *method, const char *target,
                                                       const char *target_end,
                                                       const char *version) {
#if MHD_VERSION >= 0x00097500 && MHD_VERSION < 0x00097600
  if (method == NULL || target == NULL || target_end == NULL || version == NULL) return 0;
  // libmicrohttpd wrote a NUL over the space after the method and over the last space of
  // the line, before the version; a target with no NUL inside ends at that second one.
  return method + strlen(method) + 1 == target && target_end + 1 == version && version[0] != 0;
#else
  (void)method;
  (void)target;
  (void)target_end;
  (void)version;
  return 1;
#endif
}

/// Sets the inactivity timeout of one connection, seconds (0 for none).
static inline void traffic_mhd_set_connection_timeout(struct MHD_Connection *connection,
                                                      unsigned int seconds) {
  MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

// libmicrohttpd's closed enums import into Swift under shortened case names; these
// constants give the server the C names it reads in the documentation.
static const enum MHD_Result TRAFFIC_MHD_YES = MHD_YES;
static const enum MHD_Result TRAFFIC_MHD_NO = MHD_NO;
static const enum MHD_ValueKind TRAFFIC_MHD_HEADER_KIND = MHD_HEADER_KIND;
static const enum MHD_ResponseMemoryMode TRAFFIC_MHD_RESPMEM_MUST_COPY = MHD_RESPMEM_MUST_COPY;

/// MHD_CONTENT_READER_END_OF_STREAM as a plain value (the macro casts).
static inline ssize_t traffic_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }

/// MHD_SIZE_UNKNOWN as a plain value.
static inline uint64_t traffic_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

/// Hands the pages of freed heap memory back to the system (glibc keeps them resident
/// otherwise): the server calls it once start-up has freed its load buffers. Not in Swift's
/// Glibc module, hence here, with the server's other C entry points.
static inline void traffic_return_freed_memory(void) { (void)malloc_trim(0); }

#endif
