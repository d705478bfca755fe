/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Two embedded applications in one process, joined on 127.0.0.1, each on a
 * thread of its own (poll() on its fd, then dispatch), for the documents
 * bench (bench/documents.c). The caller, on any other thread, has the
 * receiver continue the sender's activity once per round; what the sender
 * offers that round is set first, and its save writes it. */
#ifndef BENCH_DOCUMENTS_PAIR_H
#define BENCH_DOCUMENTS_PAIR_H

#include <stddef.h>
#include <stdint.h>

#define DOCUMENT_URL_KEY "NSUserActivityDocumentURLKey"
#define DOCUMENT_ORIGINS_KEY "HandoffDocumentOrigins"

/* What the sender's activity holds for a round. */
enum offer {
    OFFER_PLAIN,    /* userInfo {round, text} */
    OFFER_DOCUMENT, /* userInfo {round, NSUserActivityDocumentURLKey: url} */
    OFFER_STREAM,   /* as plain; the receiver then opens a continuation stream
                       and the sender writes stream_bytes into it */
};

/* What one round brought, as the receiving app saw it. */
struct outcome {
    int64_t t_restore;      /* the receiver's restore_user_activity_state */
    int64_t t_stream_open;  /* OFFER_STREAM: the stream fd reached the receiver */
    int64_t t_stream_end;   /* OFFER_STREAM: EOF read by the receiver */
    long long stream_bytes; /* OFFER_STREAM: bytes read */
    int64_t round;          /* the restored "round" (-1 absent) */
    char url[4096];         /* the restored NSUserActivityDocumentURLKey ("" none) */
    size_t origin_count;    /* entries of HandoffDocumentOrigins (0 none) */
    char origin[32];        /* HandoffDocumentOrigins[url] ("" none) */
    char error[300];        /* why the round failed ("" it did not) */
};

struct docpair;

/* Starts both applications (sender "bench sender", receiver "bench
 * receiver") and waits until the receiver is offered the sender's
 * activity. NULL with `why` set. */
struct docpair *docpair_start(char *why, size_t why_size);

/* One round: the sender's activity is to hold `offer` (`url` for
 * OFFER_DOCUMENT) with "round" = `round`; a save is asked for, then *t0 is
 * taken and the receiver calls handoff_application_continue. Waits until
 * the restore (for OFFER_STREAM: the stream's EOF at the receiver) or
 * `timeout_ns`. 0 with *out filled; -1 with out->error set. */
int docpair_round(struct docpair *pr, enum offer offer, const char *url, long round,
                  long long stream_bytes, int64_t timeout_ns, int64_t *t0, struct outcome *out);

/* Stops and frees both applications. */
void docpair_stop(struct docpair *pr);

#endif
