/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* SQLite 3 with FTS5 (Debian's libsqlite3): the history index
   (docs/history.md). Linked into the agent and the `handoff` tool only,
   never into libhandoff.so: apps reach the history through the agent. */
#ifndef HANDOFF_CSQLITE_SHIM_H
#define HANDOFF_CSQLITE_SHIM_H
#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift
   cannot import: bind copies through this instead. */
static inline int handoff_sqlite3_bind_text_copy(sqlite3_stmt *s, int i, const char *text, int n) {
    return sqlite3_bind_text(s, i, text, n, SQLITE_TRANSIENT);
}
static inline int handoff_sqlite3_bind_blob_copy(sqlite3_stmt *s, int i, const void *data, int n) {
    return sqlite3_bind_blob(s, i, data, n, SQLITE_TRANSIENT);
}
#endif
