/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* SQLite 3 with FTS5 (Debian's libsqlite3): the history index
   (docs/history.md). Linked into the agent and the `handoff` tool only,
   never into libhandoff.so: apps reach the history through the agent. */
#ifndef HANDOFF_CSQLITE_SHIM_H
#define HANDOFF_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <stddef.h>

/* SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift
   cannot import: bind copies through this instead. */
static inline int handoff_sqlite3_bind_text_copy(sqlite3_stmt *s, int i, const char *text, int n) {
    return sqlite3_bind_text(s, i, text, n, SQLITE_TRANSIENT);
}
static inline int handoff_sqlite3_bind_blob_copy(sqlite3_stmt *s, int i, const void *data, int n) {
    return sqlite3_bind_blob(s, i, data, n, SQLITE_TRANSIENT);
}
/* The history's ranking (docs/history.md "Searching"): FTS5's BM25 with
   every term weighted alike. bm25() weighs a term by its rarity, and to
   know it reads every row that holds the term (xQueryPhrase): a search
   would cost the whole history. This one reads only the row it ranks and
   the totals FTS5 keeps (row count, token count), so ranking a window of
   matches costs the window. Same k1, b and sign as bm25() (lower is better). */
static void handoff_sqlite3_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                                 int argc, sqlite3_value **argv) {
    (void)argc, (void)argv;
    enum { MAX_PHRASES = 64 };
    const double k1 = 1.2, b = 0.75;
    double frequency[MAX_PHRASES] = {0};
    sqlite3_int64 rows = 0, tokens = 0;
    int length = 0, hits = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &hits);
    for (int i = 0; rc == SQLITE_OK && i < hits; i++) {
        int phrase = 0, column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase >= 0 && phrase < MAX_PHRASES) frequency[phrase] += 1;
    }
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    double average = rows > 0 && tokens > 0 ? (double)tokens / (double)rows : 1.0;
    double score = 0;
    int phrases = api->xPhraseCount(fts);
    for (int i = 0; i < phrases && i < MAX_PHRASES; i++)
        score += frequency[i] * (k1 + 1) / (frequency[i] + k1 * (1 - b + b * length / average));
    sqlite3_result_double(context, -score);
}

/* Registers handoff_rank(table) on `db` (each connection has its own
   FTS5 API). SQLITE_OK, or why not. */
static inline int handoff_sqlite3_register_rank(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &s, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(s, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(s);
    sqlite3_finalize(s);
    if (!api) return SQLITE_ERROR;
    return api->xCreateFunction(api, "handoff_rank", NULL, handoff_sqlite3_rank, NULL);
}
#endif
