/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The documents bench's two applications (documents_pair.h). */
#define _GNU_SOURCE
#include "documents_pair.h"

#include "net.h"
#include "side.h"
#include "timing.h"

#include <handoff.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TYPE "com.example.bench.document"
#define SETUP_TIMEOUT_NS (10LL * 1000000000)
#define STREAM_FINISH_NS (10LL * 1000000000) /* the writer after the reader's EOF */
#define BLOCK (256 * 1024)

static const unsigned char key[32] = "documents bench key, not secret";

/* A stream's end in this process: the sender's writer or the receiver's reader. */
struct pump {
    struct docpair *pair;
    int fd;
    pthread_t thread;
    int started;
    _Atomic int running;
};

struct docpair {
    struct side sender, receiver;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    /* the round, set by docpair_round, read by the callbacks */
    enum offer offer;
    char url[4096];
    long round;
    long long stream_bytes;
    int done; /* 1 the round completed, -1 it failed */
    struct outcome out;
    char remote_id[80];
    int have_remote;
    struct pump writer, reader;
    _Atomic int stop;
};

static void finish(struct docpair *pr, int how, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Ends the round (under the lock): `how` 1 completed, -1 failed (`fmt` says why). */
static void finish(struct docpair *pr, int how, const char *fmt, ...)
{
    if (pr->done == 0) {
        pr->done = how;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(pr->out.error, sizeof pr->out.error, fmt, ap);
            va_end(ap);
        }
    }
    pthread_cond_broadcast(&pr->changed);
}

/* ---- the stream's two ends ---- */

static void *write_stream(void *arg)
{
    struct pump *p = arg;
    static char block[BLOCK];
    long long left = p->pair->stream_bytes;
    memset(block, 'd', sizeof block);
    while (left > 0) {
        ssize_t n = send(p->fd, block, left < BLOCK ? (size_t)left : BLOCK, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        left -= n;
    }
    shutdown(p->fd, SHUT_WR);
    /* until the reader closes: a close now could drop what is in flight */
    char sink[512];
    while (read(p->fd, sink, sizeof sink) > 0) {
    }
    close(p->fd);
    atomic_store(&p->running, 0);
    return NULL;
}

static void *read_stream(void *arg)
{
    struct pump *p = arg;
    struct docpair *pr = p->pair;
    static char block[BLOCK];
    long long got = 0;
    int error = 0;
    shutdown(p->fd, SHUT_WR); /* this end writes nothing */
    for (;;) {
        ssize_t n = read(p->fd, block, sizeof block);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            error = errno;
        if (n <= 0)
            break;
        got += n;
    }
    int64_t t = now_ns();
    close(p->fd);
    pthread_mutex_lock(&pr->lock);
    pr->out.t_stream_end = t;
    pr->out.stream_bytes = got;
    if (error)
        finish(pr, -1, "the stream ended with %s after %lld bytes", strerror(error), got);
    else if (got != pr->stream_bytes)
        finish(pr, -1, "the stream brought %lld bytes of %lld", got, pr->stream_bytes);
    else
        finish(pr, 1, NULL);
    pthread_mutex_unlock(&pr->lock);
    atomic_store(&p->running, 0);
    return NULL;
}

static int start_pump(struct pump *p, struct docpair *pr, int fd, void *(*body)(void *))
{
    p->pair = pr;
    p->fd = fd;
    atomic_store(&p->running, 1);
    if (pthread_create(&p->thread, NULL, body, p) != 0) {
        atomic_store(&p->running, 0);
        close(fd);
        return -1;
    }
    p->started = 1;
    return 0;
}

/* Joins a pump that finishes within STREAM_FINISH_NS; -1 when it does not
 * (it is then left running: the process is about to report and exit). */
static int join_pump(struct pump *p)
{
    if (!p->started)
        return 0;
    int64_t end = now_ns() + STREAM_FINISH_NS;
    while (atomic_load(&p->running) && now_ns() < end)
        sleep_ns(1000000);
    if (atomic_load(&p->running))
        return -1;
    pthread_join(p->thread, NULL);
    p->started = 0;
    return 0;
}

/* ---- callbacks ---- */

static void put(handoff_value *dict, const char *k, handoff_value *v)
{
    handoff_value_dictionary_set(dict, k, v);
    handoff_value_free(v);
}

/* Sender: the save writes what this round offers. */
static void on_update(handoff_responder *r, handoff_activity *activity, void *user_data)
{
    struct docpair *pr = ((struct side *)user_data)->owner;
    (void)r;
    handoff_value *info = handoff_value_new_dictionary();
    pthread_mutex_lock(&pr->lock);
    put(info, "round", handoff_value_new_integer(pr->round));
    if (pr->offer == OFFER_DOCUMENT)
        put(info, DOCUMENT_URL_KEY, handoff_value_new_url(pr->url));
    else
        put(info, "text", handoff_value_new_string("a plain activity: no document"));
    pthread_mutex_unlock(&pr->lock);
    handoff_activity_set_user_info(activity, info);
    handoff_value_free(info);
}

static void on_sender_stream(handoff_activity *activity, int fd, void *user_data)
{
    struct docpair *pr = ((struct side *)user_data)->owner;
    (void)activity;
    pthread_mutex_lock(&pr->lock);
    if (pr->writer.started || start_pump(&pr->writer, pr, fd, write_stream) != 0) {
        if (pr->writer.started)
            close(fd);
        finish(pr, -1, "the sender could not take the stream");
    }
    pthread_mutex_unlock(&pr->lock);
}

/* Receiver: the restore ends the timed interval (OFFER_STREAM: the
 * stream's EOF does). A restore of another round is not this one's. */
static void on_restore(handoff_responder *r, handoff_activity *activity, void *user_data)
{
    struct docpair *pr = ((struct side *)user_data)->owner;
    int64_t t = now_ns();
    (void)r;
    handoff_value *info = handoff_activity_copy_user_info(activity);
    int64_t round = -1;
    handoff_value_get_integer(handoff_value_dictionary_get(info, "round"), &round);
    const char *url = handoff_value_get_url(handoff_value_dictionary_get(info, DOCUMENT_URL_KEY));
    const handoff_value *origins = handoff_value_dictionary_get(info, DOCUMENT_ORIGINS_KEY);
    const char *origin = url ? handoff_value_get_string(handoff_value_dictionary_get(origins, url), NULL) : NULL;
    pthread_mutex_lock(&pr->lock);
    if (round == pr->round && pr->done == 0) {
        pr->out.t_restore = t;
        pr->out.round = round;
        snprintf(pr->out.url, sizeof pr->out.url, "%s", url ? url : "");
        snprintf(pr->out.origin, sizeof pr->out.origin, "%s", origin ? origin : "");
        pr->out.origin_count = handoff_value_count(origins);
        if (pr->offer != OFFER_STREAM)
            finish(pr, 1, NULL);
    }
    pthread_mutex_unlock(&pr->lock);
    handoff_value_free(info);
}

static void on_receiver_stream(handoff_activity *activity, int fd, int error, const char *message,
                               void *user_data)
{
    struct docpair *pr = user_data;
    int64_t t = now_ns();
    (void)activity;
    pthread_mutex_lock(&pr->lock);
    pr->out.t_stream_open = t;
    if (fd < 0)
        finish(pr, -1, "no stream: error %d: %s", error, message ? message : "");
    else if (pr->reader.started || start_pump(&pr->reader, pr, fd, read_stream) != 0) {
        if (pr->reader.started)
            close(fd);
        finish(pr, -1, "the receiver could not take the stream");
    }
    pthread_mutex_unlock(&pr->lock);
}

static void on_available(handoff_application *app, const handoff_remote_activity *remote,
                         void *user_data)
{
    struct docpair *pr = ((struct side *)user_data)->owner;
    const char *id = handoff_remote_activity_get_id(remote);
    const char *type = handoff_remote_activity_get_type(remote);
    (void)app;
    if (!id || !type || strcmp(type, TYPE) != 0)
        return;
    pthread_mutex_lock(&pr->lock);
    snprintf(pr->remote_id, sizeof pr->remote_id, "%s", id);
    pr->have_remote = 1;
    pthread_cond_broadcast(&pr->changed);
    pthread_mutex_unlock(&pr->lock);
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data)
{
    struct side *sd = user_data;
    struct docpair *pr = sd->owner;
    (void)app;
    handoff_restoration_handler_restore(handler, &sd->responder, 1);
    handoff_restoration_handler_free(handler);
    pthread_mutex_lock(&pr->lock);
    int stream = pr->offer == OFFER_STREAM && pr->done == 0;
    pthread_mutex_unlock(&pr->lock);
    if (stream && handoff_activity_get_continuation_streams(activity, on_receiver_stream, pr) != HANDOFF_OK) {
        pthread_mutex_lock(&pr->lock);
        finish(pr, -1, "get_continuation_streams: %s", handoff_last_error_message());
        pthread_mutex_unlock(&pr->lock);
    }
    return 1;
}

static void on_fail(handoff_application *app, const char *type, int error, const char *message,
                    void *user_data)
{
    struct docpair *pr = ((struct side *)user_data)->owner;
    (void)app;
    (void)type;
    pthread_mutex_lock(&pr->lock);
    finish(pr, -1, "did_fail_to_continue: error %d: %s", error, message ? message : "");
    pthread_mutex_unlock(&pr->lock);
}

/* ---- the application threads (side.h) ---- */

static int side_setup(struct side *sd)
{
    handoff_manifest *m = handoff_manifest_new("com.example.bench", "BENCHTEAM");
    if (!m || handoff_manifest_declare_activity_type(m, TYPE) != HANDOFF_OK) {
        snprintf(sd->error, sizeof sd->error, "manifest: %s", handoff_last_error_message());
        handoff_manifest_free(m);
        return -1;
    }
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    if (!sd->is_sender) {
        d.activity_available = on_available;
        d.activity_updated = on_available;
        d.continue_user_activity = on_continue;
        d.did_fail_to_continue_user_activity = on_fail;
    }
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    rc.update_user_activity_state = on_update;
    rc.restore_user_activity_state = on_restore;
    if (side_new_app(sd, m, &d, &rc) != 0)
        return -1;
    if (sd->is_sender) {
        const char *required[] = {"round"};
        handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
        ad.user_activity_did_receive_stream = on_sender_stream;
        sd->activity = handoff_activity_new(TYPE);
        if (!sd->activity || handoff_activity_set_title(sd->activity, "bench document") != HANDOFF_OK ||
            handoff_activity_set_required_user_info_keys(sd->activity, required, 1) != HANDOFF_OK ||
            handoff_activity_set_flag(sd->activity, HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, 1) != HANDOFF_OK ||
            handoff_activity_set_delegate(sd->activity, &ad, sd, NULL) != HANDOFF_OK ||
            handoff_responder_set_user_activity(sd->responder, sd->activity) != HANDOFF_OK ||
            handoff_activity_set_flag(sd->activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1) != HANDOFF_OK ||
            handoff_application_become_current(sd->app, sd->activity) != HANDOFF_OK) {
            snprintf(sd->error, sizeof sd->error, "the sender's activity: %s", handoff_last_error_message());
            return -1;
        }
    }
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    o.mode = HANDOFF_CONTINUITY_MODE_EMBEDDED;
    side_embedded_options(sd, &o, sd->is_sender ? "000000000000000000000000000d0c01" : "000000000000000000000000000d0c02");
    return side_start_continuity(sd, &o, key, sizeof key, "start_continuity");
}

static const struct side_hooks hooks = {side_setup, NULL, 100, NULL};

/* Waits on the pair's condition until `deadline` (monotonic ns); 0 on a timeout. */
static int wait_until(struct docpair *pr, int64_t deadline)
{
    struct timespec ts = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    return pthread_cond_timedwait(&pr->changed, &pr->lock, &ts) != ETIMEDOUT;
}

struct docpair *docpair_start(char *why, size_t why_size)
{
    struct docpair *pr = calloc(1, sizeof *pr);
    if (!pr) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&pr->changed, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&pr->lock, NULL);
    side_init(&pr->sender, pr, &hooks, &pr->stop, 1);
    side_init(&pr->receiver, pr, &hooks, &pr->stop, 0);
    if (side_link(&pr->sender, &pr->receiver, 0, 0) != 0) {
        snprintf(why, why_size, "no free UDP port");
        docpair_stop(pr);
        return NULL;
    }
    if (side_start(&pr->receiver, SETUP_TIMEOUT_NS) != 0 || side_start(&pr->sender, SETUP_TIMEOUT_NS) != 0) {
        snprintf(why, why_size, "%s: %s", pr->receiver.error[0] ? "receiver" : "sender",
                 pr->receiver.error[0] ? pr->receiver.error : pr->sender.error);
        docpair_stop(pr);
        return NULL;
    }
    int64_t end = now_ns() + SETUP_TIMEOUT_NS;
    pthread_mutex_lock(&pr->lock);
    while (!pr->have_remote && wait_until(pr, end)) {
    }
    int have = pr->have_remote;
    pthread_mutex_unlock(&pr->lock);
    if (!have) {
        snprintf(why, why_size, "the receiver was never offered the sender's activity");
        docpair_stop(pr);
        return NULL;
    }
    return pr;
}

int docpair_round(struct docpair *pr, enum offer offer, const char *url, long round,
                  long long stream_bytes, int64_t timeout_ns, int64_t *t0, struct outcome *out)
{
    char id[80];
    pthread_mutex_lock(&pr->lock);
    pr->offer = offer;
    snprintf(pr->url, sizeof pr->url, "%s", url ? url : "");
    pr->round = round;
    pr->stream_bytes = stream_bytes;
    pr->done = 0;
    memset(&pr->out, 0, sizeof pr->out);
    pr->out.round = -1;
    snprintf(id, sizeof id, "%s", pr->remote_id);
    pthread_mutex_unlock(&pr->lock);
    /* the state changed: the sender saves before the activity is sent */
    handoff_activity_set_flag(pr->sender.activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
    *t0 = now_ns();
    int rc = handoff_application_continue(pr->receiver.app, id);
    pthread_mutex_lock(&pr->lock);
    if (rc != HANDOFF_OK)
        finish(pr, -1, "continue: %s", handoff_last_error_message());
    int64_t deadline = *t0 + timeout_ns;
    while (pr->done == 0 && wait_until(pr, deadline)) {
    }
    if (pr->done == 0)
        finish(pr, -1, "no outcome within %.1f s", (double)timeout_ns / 1e9);
    *out = pr->out;
    int ok = pr->done == 1;
    pthread_mutex_unlock(&pr->lock);
    if (offer == OFFER_STREAM && (join_pump(&pr->reader) != 0 || join_pump(&pr->writer) != 0)) {
        snprintf(out->error, sizeof out->error, "a stream's end did not finish");
        ok = 0;
    }
    return ok ? 0 : -1;
}

void docpair_stop(struct docpair *pr)
{
    if (!pr)
        return;
    atomic_store(&pr->stop, 1);
    side_halt(&pr->sender);
    side_halt(&pr->receiver);
    join_pump(&pr->reader);
    join_pump(&pr->writer);
    side_close(&pr->sender);
    side_close(&pr->receiver);
    pthread_cond_destroy(&pr->changed);
    pthread_mutex_destroy(&pr->lock);
    free(pr);
}
