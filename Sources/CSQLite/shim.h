// The SQLite C API for the TrafficSQLite module (Debian: libsqlite3-dev).
//
// Only TrafficSQLite imports this module. Macros that Swift cannot import (function-pointer
// constants such as SQLITE_TRANSIENT) are wrapped here as static inline functions.
#ifndef TRAFFIC_CSQLITE_SHIM_H
#define TRAFFIC_CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds text that SQLite copies before returning (SQLITE_TRANSIENT), so the Swift string's
/// buffer need not outlive the call.
static inline int traffic_sqlite3_bind_text_transient(
    sqlite3_stmt *statement, int index, const char *text, int byteCount) {
  return sqlite3_bind_text(statement, index, text, byteCount, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies before returning (SQLITE_TRANSIENT).
static inline int traffic_sqlite3_bind_blob_transient(
    sqlite3_stmt *statement, int index, const void *bytes, int byteCount) {
  return sqlite3_bind_blob(statement, index, bytes, byteCount, SQLITE_TRANSIENT);
}

#endif
