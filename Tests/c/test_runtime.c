/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_runtime.c - C tests of libhandoff's runtime (applications, the main
 * loop and its pollable fd, responders, activity delegates, the current
 * activity), through include/handoff.h only.
 *
 *   cc -std=c11 -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L \
 *      -I include Tests/c/test_runtime.c -L LIBDIR -lhandoff \
 *      -Wl,-rpath,LIBDIR -lm -lpthread -o test_runtime
 *
 * Each test runs in its own process (see check.h); CHECK_NOFORK=1 runs them
 * all in one, e.g. under valgrind. Test names as arguments run only those.
 *
 * Not tested here yet: continuing an activity (will_continue_user_activity,
 * continue_user_activity, did_fail_to_continue_user_activity,
 * user_activity_was_continued, restore_user_activity_state) and handoff_restoration_handler_restore with
 * a real handler. Only continuing from another device reaches them; their
 * tests come with the continuity layer. Only the argument checks of the
 * restoration handler functions are tested below.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/* pipe2: descriptors close-on-exec from the call (Tests/abi/check_cloexec.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "handoff.h"

#include "check_handoff.h"

/* ------------------------------------------------------------------------ */
/* Status helpers                                                           */
/* ------------------------------------------------------------------------ */


/* ------------------------------------------------------------------------ */
/* Recording callbacks                                                      */
/* ------------------------------------------------------------------------ */

/* Every callback appends one event to a log; the tests compare the log as a
 * string such as "u1@A u2@A w3@A d0@A": a kind letter, the id of the tag
 * (user_data) it was called with, and the name of the activity it was given
 * (a letter registered with name_activity, '?' for an unknown pointer).
 *   u: update_user_activity_state   r: restore_user_activity_state
 *   w: user_activity_will_save      c: user_activity_was_continued
 *   d: did_update_user_activity     W: will_continue_user_activity
 *   C: continue_user_activity       F: did_fail_to_continue_user_activity */

#define MAX_EVENTS 1024
#define MAX_TAGS 16
#define MAX_NAMES 8

typedef struct tag tag;
typedef void (*hook_fn)(tag *t, handoff_activity *activity);

/* A callback's user_data. */
struct tag {
    int id;
    int destroy_count;     /* times the destroy callback ran for it */
    const void *handle;    /* the responder/app the callbacks must receive */
    hook_fn hook;          /* run inside the callback after recording */
    void *context;         /* for the hook */
};

typedef struct event {
    char kind;
    int tag_id;
    const void *activity;
} event;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static event g_events[MAX_EVENTS];
static int g_event_count;
static int g_events_dropped;
static int g_off_main_calls;      /* callbacks run off the main thread */
static int g_handle_mismatches;   /* responder/app pointer not the host's */
static int g_after_destroy;       /* callbacks given user_data already destroyed */
static pthread_t g_main_thread;
static tag g_tags[MAX_TAGS];
static int g_tag_count;
static struct {
    const void *pointer;
    char name;
} g_names[MAX_NAMES];
static int g_name_count;
static char g_log[MAX_EVENTS * 16];

/* Fresh state for a test (needed when CHECK_NOFORK=1 runs all in one). */
static void reset_state(void) {
    pthread_mutex_lock(&g_lock);
    memset(g_events, 0, sizeof g_events);
    g_event_count = 0;
    g_events_dropped = 0;
    g_off_main_calls = 0;
    g_handle_mismatches = 0;
    g_after_destroy = 0;
    memset(g_tags, 0, sizeof g_tags);
    g_tag_count = 0;
    memset(g_names, 0, sizeof g_names);
    g_name_count = 0;
    g_main_thread = pthread_self();
    pthread_mutex_unlock(&g_lock);
}

static tag *new_tag(int id) {
    tag *t;
    if (g_tag_count >= MAX_TAGS) abort();
    t = &g_tags[g_tag_count++];
    memset(t, 0, sizeof *t);
    t->id = id;
    return t;
}

static void name_activity(const void *activity, char name) {
    if (g_name_count >= MAX_NAMES) abort();
    g_names[g_name_count].pointer = activity;
    g_names[g_name_count].name = name;
    g_name_count++;
}

static char activity_name(const void *activity) {
    int i;
    if (activity == NULL) return '-';
    for (i = g_name_count - 1; i >= 0; i--) { /* the latest name wins */
        if (g_names[i].pointer == activity) return g_names[i].name;
    }
    return '?';
}

static void record(char kind, const tag *t, const void *handle, const void *activity) {
    pthread_mutex_lock(&g_lock);
    if (!pthread_equal(pthread_self(), g_main_thread)) g_off_main_calls++;
    if (t != NULL && t->handle != NULL && handle != NULL && t->handle != handle)
        g_handle_mismatches++;
    if (t != NULL && t->destroy_count > 0) g_after_destroy++;
    if (g_event_count < MAX_EVENTS) {
        g_events[g_event_count].kind = kind;
        g_events[g_event_count].tag_id = t ? t->id : -1;
        g_events[g_event_count].activity = activity;
        g_event_count++;
    } else {
        g_events_dropped++;
    }
    pthread_mutex_unlock(&g_lock);
}

static int event_count(void) {
    int n;
    pthread_mutex_lock(&g_lock);
    n = g_event_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}

/* Events of one kind so far. */
static int count_kind(char kind) {
    int i, n = 0;
    pthread_mutex_lock(&g_lock);
    for (i = 0; i < g_event_count; i++) n += g_events[i].kind == kind;
    pthread_mutex_unlock(&g_lock);
    return n;
}

/* The log from event `from` on, as a string (static buffer). */
static const char *log_from(int from) {
    int i;
    size_t used = 0;
    pthread_mutex_lock(&g_lock);
    g_log[0] = '\0';
    for (i = from; i < g_event_count; i++) {
        int n = snprintf(g_log + used, sizeof g_log - used, "%s%c%d@%c", used ? " " : "",
                         g_events[i].kind, g_events[i].tag_id, activity_name(g_events[i].activity));
        if (n < 0 || (size_t)n >= sizeof g_log - used) break;
        used += (size_t)n;
    }
    pthread_mutex_unlock(&g_lock);
    return g_log;
}

static const char *log_all(void) { return log_from(0); }

/* Checks every test ends with: callbacks only on the main thread, with the
 * host's own handles, never with user_data already destroyed, and nothing
 * dropped. */
static void check_callback_hygiene(void) {
    CHECK_EQ_INT(g_off_main_calls, 0);
    CHECK_EQ_INT(g_after_destroy, 0);
    CHECK_EQ_INT(g_handle_mismatches, 0);
    CHECK_EQ_INT(g_events_dropped, 0);
}

static void tag_destroy(void *user_data) {
    tag *t = (tag *)user_data;
    pthread_mutex_lock(&g_lock);
    t->destroy_count++;
    pthread_mutex_unlock(&g_lock);
}

static int destroy_count(const tag *t) {
    int n;
    pthread_mutex_lock(&g_lock);
    n = t->destroy_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}

/* Responder callbacks. */
static void on_update(handoff_responder *responder, handoff_activity *activity, void *user_data) {
    tag *t = (tag *)user_data;
    record('u', t, responder, activity);
    if (t != NULL && t->hook != NULL) t->hook(t, activity);
}

static void on_restore(handoff_responder *responder, handoff_activity *activity, void *user_data) {
    record('r', (tag *)user_data, responder, activity);
}

/* Activity delegate callbacks. */
static void on_will_save(handoff_activity *activity, void *user_data) {
    tag *t = (tag *)user_data;
    record('w', t, NULL, activity);
    if (t != NULL && t->hook != NULL) t->hook(t, activity);
}

static void on_was_continued(handoff_activity *activity, void *user_data) {
    record('c', (tag *)user_data, NULL, activity);
}

/* Application delegate callbacks. */
static int on_will_continue(handoff_application *app, const char *type, void *user_data) {
    (void)type;
    record('W', (tag *)user_data, app, NULL);
    return 0;
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data) {
    record('C', (tag *)user_data, app, activity);
    handoff_restoration_handler_free(handler);
    return 0;
}

static void on_did_fail(handoff_application *app, const char *type, int error, const char *message,
                        void *user_data) {
    (void)type;
    (void)error;
    (void)message;
    record('F', (tag *)user_data, app, NULL);
}

static void on_did_update(handoff_application *app, handoff_activity *activity, void *user_data) {
    tag *t = (tag *)user_data;
    record('d', t, app, activity);
    if (t != NULL && t->hook != NULL) t->hook(t, activity);
}

/* The recording structs, built from the _INIT macros so they stay complete
 * when the header adds callbacks. */
static handoff_responder_callbacks recording_responder_callbacks(void) {
    handoff_responder_callbacks c = HANDOFF_RESPONDER_CALLBACKS_INIT;
    c.update_user_activity_state = on_update;
    c.restore_user_activity_state = on_restore;
    return c;
}

static handoff_activity_delegate recording_activity_delegate(void) {
    handoff_activity_delegate d = HANDOFF_ACTIVITY_DELEGATE_INIT;
    d.user_activity_will_save = on_will_save;
    d.user_activity_was_continued = on_was_continued;
    return d;
}

static handoff_application_delegate recording_app_delegate(void) {
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    d.will_continue_user_activity = on_will_continue;
    d.continue_user_activity = on_continue;
    d.did_fail_to_continue_user_activity = on_did_fail;
    d.did_update_user_activity = on_did_update;
    return d;
}

/* ------------------------------------------------------------------------ */
/* Fixtures                                                                 */
/* ------------------------------------------------------------------------ */

#define ACTIVITY_TYPE "com.example.runtime.edit"
#define OTHER_TYPE "com.example.runtime.view"

static handoff_manifest *make_manifest(void) {
    handoff_manifest *m = handoff_manifest_new("com.example.runtime", "TEAM1234");
    if (CHECK(m != NULL)) {
        CHECK_OK(handoff_manifest_declare_activity_type(m, ACTIVITY_TYPE));
        CHECK_OK(handoff_manifest_declare_activity_type(m, OTHER_TYPE));
    }
    return m;
}

/* An application with the recording delegate; `t` (may be NULL) is its
 * user_data, destroyed with tag_destroy. */
static handoff_application *make_app_with(const handoff_application_delegate *delegate, tag *t) {
    handoff_manifest *m = make_manifest();
    handoff_application *app = handoff_application_new(m, delegate, t, t ? tag_destroy : NULL);
    handoff_manifest_free(m);
    if (!CHECK(app != NULL)) {
        fprintf(stdout, "  handoff_application_new: %s\n", handoff_last_error_message());
        return NULL;
    }
    if (t != NULL) t->handle = app;
    return app;
}

/* The usual application: recording delegate, tag id 0. */
static handoff_application *make_app(tag **out_tag) {
    tag *t = new_tag(0);
    handoff_application_delegate d = recording_app_delegate();
    if (out_tag) *out_tag = t;
    return make_app_with(&d, t);
}

/* A recording responder with a tag of id `id`, holding `activity` (may be
 * NULL). */
static handoff_responder *make_responder(handoff_application *app, int id,
                                         handoff_activity *activity, tag **out_tag) {
    tag *t = new_tag(id);
    handoff_responder_callbacks c = recording_responder_callbacks();
    handoff_responder *r = handoff_responder_new(app, &c, t, tag_destroy);
    if (out_tag) *out_tag = t;
    if (!CHECK(r != NULL)) return NULL;
    t->handle = r;
    if (activity != NULL) CHECK_OK(handoff_responder_set_user_activity(r, activity));
    return r;
}

static handoff_activity *make_activity(char name) {
    handoff_activity *a = handoff_activity_new(ACTIVITY_TYPE);
    if (CHECK(a != NULL)) name_activity(a, name);
    return a;
}

/* Sets a recording delegate (tag `id`) on an activity. */
static tag *set_recording_delegate(handoff_activity *activity, int id) {
    tag *t = new_tag(id);
    handoff_activity_delegate d = recording_activity_delegate();
    CHECK_OK(handoff_activity_set_delegate(activity, &d, t, tag_destroy));
    return t;
}

static int needs_save(const handoff_activity *activity) {
    int value = -1;
    CHECK_OK(handoff_activity_get_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, &value));
    return value;
}

static int set_needs_save(handoff_activity *activity) {
    return handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
}

/* 1 when fd is readable right now (poll with a 0 timeout), else 0. */
static int fd_readable(int fd) {
    struct pollfd p;
    int n;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    do {
        n = poll(&p, 1, 0);
    } while (n < 0 && errno == EINTR);
    return n == 1 && (p.revents & POLLIN) != 0;
}

static int app_readable(const handoff_application *app) {
    return fd_readable(handoff_application_get_fd(app));
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int write_byte(int fd, char c) {
    ssize_t n;
    do {
        n = write(fd, &c, 1);
    } while (n < 0 && errno == EINTR);
    return n == 1;
}

/* Reads one byte; returns it, or -1 at end of file or on error. */
static int read_byte(int fd) {
    char c;
    ssize_t n;
    do {
        n = read(fd, &c, 1);
    } while (n < 0 && errno == EINTR);
    return n == 1 ? (unsigned char)c : -1;
}

/* Pipes that do not leak into forked children's descriptors' counts,
 * nor into a program another thread starts (close-on-exec from the call). */
static int make_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) {
        CHECK_FAIL("pipe: %s", strerror(errno));
        return 0;
    }
    return 1;
}

static void close_pipe(int fds[2]) {
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    fds[0] = fds[1] = -1;
}

/* ------------------------------------------------------------------------ */
/* The pollable fd                                                          */
/* ------------------------------------------------------------------------ */

static void test_fd_idle(void) {
    handoff_application *app;
    int fd;
    reset_state();
    app = make_app(NULL);
    if (app == NULL) return;
    fd = handoff_application_get_fd(app);
    CHECK(fd >= 0);
    CHECK_EQ_INT(handoff_application_get_fd(app), fd); /* stable */
    CHECK(!fd_readable(fd));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);
    /* Dispatching with nothing queued runs nothing and changes nothing. */
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_OK(handoff_application_dispatch(app));
    CHECK(!fd_readable(fd));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);
    CHECK_EQ_INT(event_count(), 0);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void test_fd_readable_while_save_pending(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    int fd, round;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, NULL);
    fd = handoff_application_get_fd(app);

    /* Holding an activity queues nothing. */
    CHECK(!fd_readable(fd));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);

    for (round = 0; round < 3; round++) {
        int before = event_count();
        CHECK_OK(set_needs_save(a));
        CHECK(fd_readable(fd));
        CHECK(fd_readable(fd)); /* polling does not consume it */
        CHECK_EQ_INT(handoff_application_next_timeout(app), 0);
        CHECK_EQ_INT(event_count(), before); /* nothing ran yet */
        CHECK_OK(handoff_application_dispatch(app));
        CHECK_EQ_STR(log_from(before), "u1@A d0@A");
        CHECK(!fd_readable(fd));
        CHECK_EQ_INT(handoff_application_next_timeout(app), -1);
    }

    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* --- A host's own poll() loop, fed by a worker thread -------------------- */

#define LOOP_ROUNDS 5

struct saver {
    handoff_activity *activity;
    int to_main[2];   /* worker -> main: 's' a save was asked, 'q' done */
    int to_worker[2]; /* main -> worker: one byte per round seen through */
    int set_failures;
    int rounds_done;
};

static void *saver_thread(void *arg) {
    struct saver *s = (struct saver *)arg;
    int i;
    for (i = 0; i < LOOP_ROUNDS; i++) {
        if (set_needs_save(s->activity) != HANDOFF_OK) s->set_failures++;
        if (!write_byte(s->to_main[1], 's')) break;
        if (read_byte(s->to_worker[0]) < 0) break; /* main gave up */
        s->rounds_done++;
    }
    (void)write_byte(s->to_main[1], 'q');
    return NULL;
}

static void test_poll_loop_with_worker_thread(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    struct saver s;
    pthread_t worker;
    int app_fd, asked = 0, acked = 0, quit = 0, i;
    char expected[256];

    reset_state();
    memset(&s, 0, sizeof s);
    s.to_main[0] = s.to_main[1] = s.to_worker[0] = s.to_worker[1] = -1;
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, NULL);
    set_recording_delegate(a, 2);
    app_fd = handoff_application_get_fd(app);
    s.activity = a;
    if (!make_pipe(s.to_main) || !make_pipe(s.to_worker)) return;
    if (!CHECK(pthread_create(&worker, NULL, saver_thread, &s) == 0)) return;

    /* The host's loop: poll the library's fd and its own pipe. */
    while (!(quit && acked == asked)) {
        struct pollfd fds[2];
        int timeout = handoff_application_next_timeout(app);
        int idle = timeout < 0;
        int n;
        if (timeout < 0 || timeout > 5000) timeout = 5000; /* stall guard */
        fds[0].fd = app_fd;
        fds[0].events = POLLIN;
        fds[0].revents = 0;
        fds[1].fd = s.to_main[0];
        fds[1].events = POLLIN;
        fds[1].revents = 0;
        n = poll(fds, 2, timeout);
        if (n < 0 && errno == EINTR) continue;
        if (!CHECK(n >= 0)) break;
        if (n == 0 && idle) {
            CHECK_FAIL("the loop stalled: asked %d, acknowledged %d, quit %d", asked, acked, quit);
            break;
        }
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            int c = read_byte(s.to_main[0]);
            if (c == 's') {
                asked++;
            } else if (c == 'q') {
                quit = 1;
            } else {
                CHECK_FAIL("unexpected byte %d from the worker", c);
                break;
            }
        }
        if ((fds[0].revents & POLLIN) || n == 0) CHECK_OK(handoff_application_dispatch(app));
        /* A round is through once its save has run on this thread (the app
         * fd may win the race against the pipe: the update can run before
         * the 's' is read). */
        if (acked < asked && count_kind('u') >= acked + 1) {
            acked++;
            if (!CHECK(write_byte(s.to_worker[1], 'a'))) break;
        }
        /* The worker waits for each acknowledgement: one save per round. */
        if (count_kind('u') > acked + 1) {
            CHECK_FAIL("%d updates after %d rounds", count_kind('u'), acked);
            break;
        }
    }
    /* Unblock the worker whatever happened, then join it. */
    close(s.to_worker[1]);
    s.to_worker[1] = -1;
    CHECK(pthread_join(worker, NULL) == 0);

    CHECK_EQ_INT(s.set_failures, 0);
    CHECK_EQ_INT(s.rounds_done, LOOP_ROUNDS);
    CHECK_EQ_INT(asked, LOOP_ROUNDS);
    CHECK_EQ_INT(acked, LOOP_ROUNDS);
    expected[0] = '\0';
    for (i = 0; i < LOOP_ROUNDS; i++)
        strcat(expected, i == 0 ? "u1@A w2@A d0@A" : " u1@A w2@A d0@A");
    CHECK_EQ_STR(log_all(), expected);
    CHECK(!fd_readable(app_fd));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);

    close_pipe(s.to_main);
    close_pipe(s.to_worker);
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Saving                                                                   */
/* ------------------------------------------------------------------------ */

static void test_callbacks_only_inside_dispatch(void) {
    handoff_application *app;
    handoff_activity *a, *b;
    handoff_responder *r1, *r2;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    b = make_activity('B');
    if (app == NULL || a == NULL || b == NULL) return;

    /* Nothing the host does outside dispatch runs a callback. */
    r1 = make_responder(app, 1, a, NULL);
    set_recording_delegate(a, 3);
    CHECK_OK(set_needs_save(a));
    r2 = make_responder(app, 2, b, NULL);
    CHECK_OK(set_needs_save(b));
    CHECK_OK(handoff_application_become_current(app, a));
    CHECK_OK(handoff_activity_set_title(a, "Title"));
    CHECK_OK(handoff_responder_set_user_activity(r2, a));
    CHECK_OK(handoff_responder_set_user_activity(r2, b));
    CHECK_OK(handoff_application_resign_current(app, a));
    CHECK_EQ_INT(event_count(), 0);
    CHECK(app_readable(app));

    CHECK_OK(handoff_application_dispatch(app));
    /* Both saves ran, each with its own responder, user_activity_will_save
     * and did_update_user_activity. */
    CHECK_EQ_INT(count_kind('u'), 2);
    CHECK_EQ_INT(count_kind('w'), 1);
    CHECK_EQ_INT(count_kind('d'), 2);
    CHECK(strstr(log_all(), "u1@A w3@A d0@A") != NULL);
    CHECK(strstr(log_all(), "u2@B d0@B") != NULL);
    CHECK(!app_readable(app));

    handoff_responder_free(r1);
    handoff_responder_free(r2);
    handoff_activity_free(a);
    handoff_activity_free(b);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void test_coalescing(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r1, *r2;
    tag *app_tag;
    int i;
    reset_state();
    app = make_app(&app_tag);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r1 = make_responder(app, 1, NULL, NULL);
    r2 = make_responder(app, 2, NULL, NULL);
    /* Attached in the other order: creation order is what counts. */
    CHECK_OK(handoff_responder_set_user_activity(r2, a));
    CHECK_OK(handoff_responder_set_user_activity(r1, a));
    set_recording_delegate(a, 3);
    CHECK_EQ_INT(needs_save(a), 0);

    for (i = 0; i < 100; i++) CHECK_OK(set_needs_save(a));
    CHECK_EQ_INT(needs_save(a), 1);
    CHECK_EQ_INT(event_count(), 0);
    CHECK(app_readable(app));
    CHECK_EQ_INT(handoff_application_next_timeout(app), 0);

    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_STR(log_all(), "u1@A u2@A w3@A d0@A");
    CHECK_EQ_INT(needs_save(a), 0);
    CHECK(!app_readable(app));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);

    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(event_count(), 4);

    handoff_responder_free(r1);
    handoff_responder_free(r2);
    handoff_activity_free(a);
    handoff_application_free(app);
    CHECK_EQ_INT(destroy_count(app_tag), 1);
    check_callback_hygiene();
}

/* Responders and user_activity_will_save add state; the saved activity carries it all. */
static void add_entry_hook(tag *t, handoff_activity *activity) {
    handoff_value *d = handoff_value_new_dictionary();
    handoff_value *v = handoff_value_new_integer(t->id);
    char key[16];
    snprintf(key, sizeof key, "tag%d", t->id);
    if (handoff_value_dictionary_set(d, key, v) != HANDOFF_OK ||
        handoff_activity_add_user_info_entries(activity, d) != HANDOFF_OK) {
        t->context = (void *)activity; /* marks a failure */
    }
    handoff_value_free(v);
    handoff_value_free(d);
}

static void test_save_collects_state(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r1, *r2;
    handoff_value *info;
    tag *t1, *t2, *t3;
    int64_t n = -1;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r1 = make_responder(app, 1, a, &t1);
    r2 = make_responder(app, 2, a, &t2);
    t3 = set_recording_delegate(a, 3);
    t1->hook = t2->hook = t3->hook = add_entry_hook;
    CHECK_OK(set_needs_save(a));
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_STR(log_all(), "u1@A u2@A w3@A d0@A");
    CHECK(t1->context == NULL && t2->context == NULL && t3->context == NULL);
    info = handoff_activity_copy_user_info(a);
    CHECK_EQ_INT(handoff_value_count(info), 3);
    CHECK_OK(handoff_value_get_integer(handoff_value_dictionary_get(info, "tag1"), &n));
    CHECK_EQ_INT(n, 1);
    CHECK_OK(handoff_value_get_integer(handoff_value_dictionary_get(info, "tag3"), &n));
    CHECK_EQ_INT(n, 3);
    handoff_value_free(info);
    handoff_responder_free(r1);
    handoff_responder_free(r2);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Responders                                                               */
/* ------------------------------------------------------------------------ */

static void save_and_dispatch(handoff_application *app, handoff_activity *activity) {
    CHECK_OK(set_needs_save(activity));
    CHECK_OK(handoff_application_dispatch(app));
}

static void test_responder_order_and_switching(void) {
    handoff_application *app;
    handoff_activity *a, *b, *copy;
    handoff_responder *r1, *r2, *r3;
    tag *t1, *t2, *t3;
    int mark;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    b = make_activity('B');
    if (app == NULL || a == NULL || b == NULL) return;
    r1 = make_responder(app, 1, a, &t1);
    r2 = make_responder(app, 2, b, &t2);
    r3 = make_responder(app, 3, a, &t3);

    mark = event_count();
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_from(mark), "u1@A u3@A d0@A");
    mark = event_count();
    save_and_dispatch(app, b);
    CHECK_EQ_STR(log_from(mark), "u2@B d0@B");

    /* The responder hands back the host's own handle, +1. */
    copy = handoff_responder_copy_user_activity(r3);
    CHECK(copy == a);
    handoff_activity_free(copy);
    copy = handoff_responder_copy_user_activity(r2);
    CHECK(copy == b);
    handoff_activity_free(copy);

    /* r3 switches to B. */
    CHECK_OK(handoff_responder_set_user_activity(r3, b));
    copy = handoff_responder_copy_user_activity(r3);
    CHECK(copy == b);
    handoff_activity_free(copy);
    mark = event_count();
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_from(mark), "u1@A d0@A");
    mark = event_count();
    save_and_dispatch(app, b);
    CHECK_EQ_STR(log_from(mark), "u2@B u3@B d0@B");

    /* Setting the same activity again changes nothing. */
    CHECK_OK(handoff_responder_set_user_activity(r3, b));
    mark = event_count();
    save_and_dispatch(app, b);
    CHECK_EQ_STR(log_from(mark), "u2@B u3@B d0@B");

    /* r1 lets go of its activity. */
    CHECK_OK(handoff_responder_set_user_activity(r1, NULL));
    CHECK_NULL_ERR(handoff_responder_copy_user_activity(r1), HANDOFF_E_NOT_FOUND);

    /* r2 is freed: called no more, destroyed exactly once, at the free. */
    CHECK_EQ_INT(destroy_count(t2), 0);
    handoff_responder_free(r2);
    CHECK_EQ_INT(destroy_count(t2), 1);
    mark = event_count();
    save_and_dispatch(app, b);
    CHECK_EQ_STR(log_from(mark), "u3@B d0@B");

    handoff_responder_free(r1);
    handoff_responder_free(r3);
    CHECK_EQ_INT(destroy_count(t1), 1);
    CHECK_EQ_INT(destroy_count(t2), 1);
    CHECK_EQ_INT(destroy_count(t3), 1);
    /* No responder left: a save of A calls none of them. */
    mark = event_count();
    CHECK_OK(set_needs_save(a));
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(count_kind('u'), 9);
    handoff_activity_free(a);
    handoff_activity_free(b);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* The responder keeps its activity alive after the host lets go, and still
 * hands out the same pointer. */
static void test_responder_keeps_activity(void) {
    handoff_application *app;
    handoff_activity *a, *copy;
    handoff_responder *r;
    tag *delegate_tag;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, NULL);
    delegate_tag = set_recording_delegate(a, 2);
    CHECK_OK(handoff_activity_set_title(a, "Kept"));
    handoff_activity_free(a);
    CHECK_EQ_INT(destroy_count(delegate_tag), 0); /* still alive */
    /* The host no longer holds a handle, so the one it gets now may be a
     * new pointer; but while it holds that one, callbacks receive it. */
    copy = handoff_responder_copy_user_activity(r);
    if (CHECK(copy != NULL)) {
        handoff_activity *again;
        name_activity(copy, 'K');
        CHECK_EQ_STR(handoff_activity_get_type(copy), ACTIVITY_TYPE);
        CHECK_EQ_STR(handoff_activity_get_title(copy), "Kept");
        again = handoff_responder_copy_user_activity(r);
        CHECK(again == copy);
        handoff_activity_free(again);
        save_and_dispatch(app, copy);
        CHECK_EQ_STR(log_all(), "u1@K w2@K d0@K");
        handoff_activity_free(copy);
    }
    CHECK_EQ_INT(destroy_count(delegate_tag), 0);
    /* The responder held the last reference: the activity goes away. */
    handoff_responder_free(r);
    CHECK_EQ_INT(destroy_count(delegate_tag), 1);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* A responder freed by another responder's callback, mid-dispatch, is not
 * called in that dispatch, and its user_data is destroyed at the free
 * ("called with user_data when the responder is freed"). */
struct victim {
    handoff_responder *responder;
    tag *tag;
    int destroyed_at_free; /* destroy count right after the free returned */
};

static void free_other_hook(tag *t, handoff_activity *activity) {
    struct victim *v = (struct victim *)t->context;
    (void)activity;
    if (v != NULL && v->responder != NULL) {
        handoff_responder_free(v->responder);
        v->responder = NULL;
        v->destroyed_at_free = destroy_count(v->tag);
    }
}

static void test_free_responder_from_callback(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r1, *r2, *r3;
    tag *t1, *t2, *t3;
    struct victim v;
    int mark;
    reset_state();
    memset(&v, 0, sizeof v);
    v.destroyed_at_free = -1;
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r1 = make_responder(app, 1, a, &t1);
    r2 = make_responder(app, 2, a, &t2);
    r3 = make_responder(app, 3, a, &t3);
    v.responder = r2;
    v.tag = t2;
    t1->hook = free_other_hook;
    t1->context = &v;
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_all(), "u1@A u3@A d0@A");
    CHECK(v.responder == NULL);
    CHECK_EQ_INT(v.destroyed_at_free, 1);
    CHECK_EQ_INT(destroy_count(t2), 1);
    mark = event_count();
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_from(mark), "u1@A u3@A d0@A");
    handoff_responder_free(r1);
    handoff_responder_free(r3);
    CHECK_EQ_INT(destroy_count(t1), 1);
    CHECK_EQ_INT(destroy_count(t2), 1);
    CHECK_EQ_INT(destroy_count(t3), 1);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Identity                                                                 */
/* ------------------------------------------------------------------------ */

static void keep_hook(tag *t, handoff_activity *activity) {
    if (t->context == NULL) t->context = handoff_activity_ref(activity);
}

static void test_identity(void) {
    handoff_application *app;
    handoff_activity *a, *b, *kept;
    handoff_responder *r;
    tag *t;
    const void *original;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    b = make_activity('B');
    if (app == NULL || a == NULL || b == NULL) return;
    CHECK(handoff_activity_ref(a) == a);
    handoff_activity_free(a); /* the extra reference */
    CHECK(handoff_activity_ref(NULL) == NULL);

    r = make_responder(app, 1, a, &t);
    t->hook = keep_hook;
    set_recording_delegate(a, 2);
    save_and_dispatch(app, a);
    /* Every callback got exactly A's handle, responder and app handles too
     * (checked through g_handle_mismatches). */
    CHECK_EQ_STR(log_all(), "u1@A w2@A d0@A");
    kept = (handoff_activity *)t->context;
    CHECK(kept == a);

    /* A reference taken in a callback outlives the host's own. */
    original = a;
    CHECK_OK(handoff_responder_set_user_activity(r, b));
    handoff_activity_free(a);
    if (CHECK(kept != NULL)) {
        CHECK(kept == original);
        CHECK_EQ_STR(handoff_activity_get_type(kept), ACTIVITY_TYPE);
        handoff_activity_free(kept);
    }
    handoff_responder_free(r);
    handoff_activity_free(b);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Re-entrancy                                                              */
/* ------------------------------------------------------------------------ */

struct reentry {
    handoff_application *app;
    int armed;
    int calls;
    int set_flag_status;
    int flag_after_set;
    int become_current_status;
    int set_title_status;
    int stop_status;
    int dispatch_status;
    int dispatch_error_code;
    int copy_current_same;
};

static void reentry_hook(tag *t, handoff_activity *activity) {
    struct reentry *re = (struct reentry *)t->context;
    handoff_activity *current;
    int flag = -1;
    re->calls++;
    if (!re->armed) return;
    re->armed = 0;
    re->set_flag_status = set_needs_save(activity);
    re->flag_after_set =
        handoff_activity_get_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, &flag) == HANDOFF_OK ? flag
                                                                                             : -1;
    re->become_current_status = handoff_application_become_current(re->app, activity);
    current = handoff_application_copy_current_activity(re->app);
    re->copy_current_same = current == activity;
    handoff_activity_free(current);
    re->set_title_status = handoff_activity_set_title(activity, "set inside a callback");
    re->stop_status = handoff_application_stop(re->app);
    prime_error(HANDOFF_E_INVALID_STATE);
    re->dispatch_status = handoff_application_dispatch(re->app);
    re->dispatch_error_code = handoff_last_error_code();
}

static void test_reentrancy(void) {
    handoff_application *app;
    handoff_activity *a, *current;
    handoff_responder *r1, *r2;
    tag *t1;
    struct reentry re;
    double started, elapsed;
    int mark;
    reset_state();
    memset(&re, 0, sizeof re);
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r1 = make_responder(app, 1, a, &t1);
    r2 = make_responder(app, 2, a, NULL);
    set_recording_delegate(a, 3);
    re.app = app;
    re.armed = 1;
    t1->hook = reentry_hook;
    t1->context = &re;

    save_and_dispatch(app, a);
    /* The save asked for inside the callback waits for the next dispatch. */
    CHECK_EQ_STR(log_all(), "u1@A u2@A w3@A d0@A");
    CHECK_EQ_INT(re.calls, 1);
    CHECK_EQ_INT(re.set_flag_status, HANDOFF_OK);
    CHECK_EQ_INT(re.flag_after_set, 1);
    CHECK_EQ_INT(re.become_current_status, HANDOFF_OK);
    CHECK(re.copy_current_same);
    CHECK_EQ_INT(re.set_title_status, HANDOFF_OK);
    CHECK_EQ_INT(re.stop_status, HANDOFF_OK);
    CHECK_EQ_INT(re.dispatch_status, HANDOFF_E_INVALID_STATE);
    CHECK_EQ_INT(re.dispatch_error_code, HANDOFF_E_INVALID_STATE);

    CHECK_EQ_STR(handoff_activity_get_title(a), "set inside a callback");
    current = handoff_application_copy_current_activity(app);
    CHECK(current == a);
    handoff_activity_free(current);
    CHECK_EQ_INT(needs_save(a), 1);
    CHECK(app_readable(app));
    CHECK_EQ_INT(handoff_application_next_timeout(app), 0);

    mark = event_count();
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_STR(log_from(mark), "u1@A u2@A w3@A d0@A");
    CHECK_EQ_INT(re.calls, 2);
    CHECK_EQ_INT(needs_save(a), 0);
    CHECK(!app_readable(app));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);
    mark = event_count();
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(event_count(), mark);

    /* The stop asked for inside the callback, while no run ran, ends the
     * next run at once. */
    started = now_ms();
    CHECK_OK(handoff_application_run(app, 5000));
    elapsed = now_ms() - started;
    CHECK(elapsed < 2500.0);
    /* ...and only that one. */
    CHECK_STATUS(handoff_application_run(app, 50), HANDOFF_E_TIMED_OUT);

    CHECK_OK(handoff_application_resign_current(app, a));
    handoff_responder_free(r1);
    handoff_responder_free(r2);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* Dispatch from inside user_activity_will_save and did_update_user_activity
 * is refused as well. */
struct nested_dispatch {
    handoff_application *app;
    int statuses[4];
    int count;
};

static void nested_dispatch_hook(tag *t, handoff_activity *activity) {
    struct nested_dispatch *nd = (struct nested_dispatch *)t->context;
    (void)activity;
    if (nd->count < 4) nd->statuses[nd->count++] = handoff_application_dispatch(nd->app);
}

static void test_dispatch_inside_every_callback(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    tag *app_tag, *t1, *t2;
    struct nested_dispatch nd;
    int i;
    reset_state();
    memset(&nd, 0, sizeof nd);
    app = make_app(&app_tag);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    nd.app = app;
    r = make_responder(app, 1, a, &t1);
    t2 = set_recording_delegate(a, 2);
    t1->hook = t2->hook = app_tag->hook = nested_dispatch_hook;
    t1->context = t2->context = app_tag->context = &nd;
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_all(), "u1@A w2@A d0@A");
    CHECK_EQ_INT(nd.count, 3);
    for (i = 0; i < nd.count; i++) CHECK_EQ_INT(nd.statuses[i], HANDOFF_E_INVALID_STATE);
    CHECK(!app_readable(app));
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Threads                                                                  */
/* ------------------------------------------------------------------------ */

struct off_main {
    handoff_application *app;
    handoff_activity *activity;
    handoff_responder *responder;
    tag *responder_tag;
    int dispatch_status;
    int dispatch_error_code;
    int run_status;
    int set_status;
    int set_flag_status;
    int become_current_status;
    int fd;
    int timeout;
};

static void *dispatch_thread(void *arg) {
    struct off_main *o = (struct off_main *)arg;
    prime_error(HANDOFF_E_WRONG_THREAD);
    o->dispatch_status = handoff_application_dispatch(o->app);
    o->dispatch_error_code = handoff_last_error_code();
    o->run_status = handoff_application_run(o->app, 0);
    o->fd = handoff_application_get_fd(o->app);
    o->timeout = handoff_application_next_timeout(o->app);
    return NULL;
}

static void test_dispatch_off_main_thread(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    struct off_main o;
    pthread_t thread;
    reset_state();
    memset(&o, 0, sizeof o);
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, NULL);
    CHECK_OK(set_needs_save(a));
    o.app = app;
    if (!CHECK(pthread_create(&thread, NULL, dispatch_thread, &o) == 0)) return;
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_EQ_INT(o.dispatch_status, HANDOFF_E_WRONG_THREAD);
    CHECK_EQ_INT(o.dispatch_error_code, HANDOFF_E_WRONG_THREAD);
    CHECK_EQ_INT(o.run_status, HANDOFF_E_WRONG_THREAD);
    CHECK_EQ_INT(o.fd, handoff_application_get_fd(app));
    CHECK_EQ_INT(o.timeout, 0);
    /* Nothing ran, and the work is still there for the main thread. */
    CHECK_EQ_INT(event_count(), 0);
    CHECK(app_readable(app));
    CHECK_EQ_INT(handoff_application_next_timeout(app), 0);
    CHECK_EQ_INT(needs_save(a), 1);
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_STR(log_all(), "u1@A d0@A");
    CHECK(!app_readable(app));
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void *setup_thread(void *arg) {
    struct off_main *o = (struct off_main *)arg;
    handoff_responder_callbacks c = recording_responder_callbacks();
    o->responder = handoff_responder_new(o->app, &c, o->responder_tag, tag_destroy);
    o->set_status = handoff_responder_set_user_activity(o->responder, o->activity);
    o->set_flag_status = set_needs_save(o->activity);
    o->become_current_status = handoff_application_become_current(o->app, o->activity);
    return NULL;
}

static void test_calls_from_other_threads(void) {
    handoff_application *app;
    handoff_activity *a, *current;
    struct off_main o;
    pthread_t thread;
    reset_state();
    memset(&o, 0, sizeof o);
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    o.app = app;
    o.activity = a;
    o.responder_tag = new_tag(1);
    if (!CHECK(pthread_create(&thread, NULL, setup_thread, &o) == 0)) return;
    CHECK(pthread_join(thread, NULL) == 0);
    if (!CHECK(o.responder != NULL)) return;
    o.responder_tag->handle = o.responder;
    CHECK_EQ_INT(o.set_status, HANDOFF_OK);
    CHECK_EQ_INT(o.set_flag_status, HANDOFF_OK);
    CHECK_EQ_INT(o.become_current_status, HANDOFF_OK);
    CHECK_EQ_INT(event_count(), 0);
    CHECK(app_readable(app));
    current = handoff_application_copy_current_activity(app);
    CHECK(current == a);
    handoff_activity_free(current);
    /* No continuation chosen outside the app runs: no activation token. */
    CHECK(handoff_application_get_activation_token(app) == NULL);
    CHECK(handoff_application_get_activation_token(NULL) == NULL);
    /* The callbacks run here, on the main thread. */
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_STR(log_all(), "u1@A d0@A");
    handoff_responder_free(o.responder);
    CHECK_EQ_INT(destroy_count(o.responder_tag), 1);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* --- run and stop -------------------------------------------------------- */

struct stopper {
    handoff_application *app;
    int signal[2]; /* main (inside run, in a callback) -> stopper */
    int ack[2];    /* stopper -> main, after the stop */
    int wait_in_callback; /* the callback waits until the stop was made */
    int stop_status;
    int got;
};

static void *stopper_thread(void *arg) {
    struct stopper *s = (struct stopper *)arg;
    s->got = read_byte(s->signal[0]);
    s->stop_status = handoff_application_stop(s->app);
    (void)write_byte(s->ack[1], 'k');
    return NULL;
}

static void signal_hook(tag *t, handoff_activity *activity) {
    struct stopper *s = (struct stopper *)t->context;
    (void)activity;
    if (s != NULL) {
        t->context = NULL;
        (void)write_byte(s->signal[1], 'r');
        if (s->wait_in_callback) (void)read_byte(s->ack[0]);
    }
}

/* A run that dispatches a save whose callback hands over to another thread,
 * which stops the run from outside; with wait_in_callback the stop surely
 * lands while run is inside dispatch, else anywhere in the run (dispatch or
 * blocked in poll). */
static void stop_from_other_thread(int wait_in_callback) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    tag *t1;
    struct stopper s;
    pthread_t thread;
    int timeout;
    reset_state();
    memset(&s, 0, sizeof s);
    s.signal[0] = s.signal[1] = s.ack[0] = s.ack[1] = -1;
    s.wait_in_callback = wait_in_callback;
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, &t1);
    if (!make_pipe(s.signal) || !make_pipe(s.ack)) return;
    s.app = app;
    t1->hook = signal_hook;
    t1->context = &s;
    CHECK_OK(set_needs_save(a));
    if (!CHECK(pthread_create(&thread, NULL, stopper_thread, &s) == 0)) return;
    CHECK_OK(handoff_application_run(app, -1));
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_EQ_INT(s.got, 'r');
    CHECK_EQ_INT(s.stop_status, HANDOFF_OK);
    CHECK_EQ_STR(log_all(), "u1@A d0@A");
    timeout = handoff_application_next_timeout(app);
    /* The fd and the timeout agree. */
    CHECK_EQ_INT(app_readable(app), timeout == 0);
    if (wait_in_callback) {
        /* Nothing is queued for the host any more, so the fd must not be
         * readable ("readable exactly while callbacks are queued or a timer
         * is due") and the timeout is -1. */
        CHECK_EQ_INT(timeout, -1);
        CHECK(!app_readable(app));
    }
    /* Whatever is left runs no callback and leaves the fd quiet. */
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_STR(log_all(), "u1@A d0@A");
    CHECK(!app_readable(app));
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1);
    /* The stop was used up by that run. */
    CHECK_STATUS(handoff_application_run(app, 50), HANDOFF_E_TIMED_OUT);
    close_pipe(s.signal);
    close_pipe(s.ack);
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void test_stop_from_other_thread_ends_run(void) { stop_from_other_thread(0); }

static void test_stop_during_dispatch_leaves_fd_quiet(void) { stop_from_other_thread(1); }

static void test_stop_before_run(void) {
    handoff_application *app;
    double started, elapsed;
    reset_state();
    app = make_app(NULL);
    if (app == NULL) return;
    CHECK_OK(handoff_application_stop(app));
    started = now_ms();
    CHECK_OK(handoff_application_run(app, -1));
    elapsed = now_ms() - started;
    CHECK(elapsed < 2500.0);
    CHECK_EQ_INT(event_count(), 0);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void test_run_times_out(void) {
    handoff_application *app;
    double started, elapsed;
    reset_state();
    app = make_app(NULL);
    if (app == NULL) return;
    started = now_ms();
    CHECK_STATUS(handoff_application_run(app, 50), HANDOFF_E_TIMED_OUT);
    elapsed = now_ms() - started;
    CHECK(elapsed >= 40.0);
    CHECK(elapsed < 10000.0);
    CHECK_EQ_INT(event_count(), 0);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* run() dispatches what is queued, then times out. */
static void test_run_dispatches(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    double started, elapsed;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, NULL);
    set_recording_delegate(a, 2);
    CHECK_OK(set_needs_save(a));
    started = now_ms();
    CHECK_STATUS(handoff_application_run(app, 50), HANDOFF_E_TIMED_OUT);
    elapsed = now_ms() - started;
    CHECK(elapsed >= 40.0);
    CHECK_EQ_STR(log_all(), "u1@A w2@A d0@A");
    CHECK(!app_readable(app));
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* The current activity                                                     */
/* ------------------------------------------------------------------------ */

static void test_current_activity(void) {
    handoff_application *app;
    handoff_activity *a, *b, *current;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    b = make_activity('B');
    if (app == NULL || a == NULL || b == NULL) return;

    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);

    CHECK_OK(handoff_application_become_current(app, a));
    current = handoff_application_copy_current_activity(app);
    CHECK(current == a);
    /* +1: the host's reference and the copy are separate. */
    handoff_activity_free(current);
    current = handoff_application_copy_current_activity(app);
    CHECK(current == a);
    handoff_activity_free(current);

    /* Becoming current twice is harmless. */
    CHECK_OK(handoff_application_become_current(app, a));
    current = handoff_application_copy_current_activity(app);
    CHECK(current == a);
    handoff_activity_free(current);

    /* B takes over. */
    CHECK_OK(handoff_application_become_current(app, b));
    current = handoff_application_copy_current_activity(app);
    CHECK(current == b);
    handoff_activity_free(current);

    /* Resigning a non-current activity does nothing. */
    CHECK_OK(handoff_application_resign_current(app, a));
    current = handoff_application_copy_current_activity(app);
    CHECK(current == b);
    handoff_activity_free(current);

    CHECK_OK(handoff_application_resign_current(app, b));
    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);
    CHECK_OK(handoff_application_resign_current(app, b)); /* twice: harmless */
    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);

    /* None of this runs a callback or queues anything. */
    CHECK_EQ_INT(event_count(), 0);
    CHECK(!app_readable(app));

    handoff_activity_free(a);
    handoff_activity_free(b);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void test_invalidate(void) {
    handoff_application *app;
    handoff_activity *a, *b, *current;
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    b = make_activity('B');
    if (app == NULL || a == NULL || b == NULL) return;

    CHECK_EQ_INT(handoff_activity_is_invalidated(a), 0);
    CHECK_OK(handoff_application_become_current(app, a));
    CHECK_OK(handoff_activity_invalidate(a));
    CHECK_EQ_INT(handoff_activity_is_invalidated(a), 1);
    CHECK_EQ_INT(handoff_activity_is_invalidated(b), 0);
    /* Invalidating the current activity withdraws it. */
    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);
    /* It can never become current again. */
    CHECK_STATUS(handoff_application_become_current(app, a), HANDOFF_E_INVALID_STATE);
    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);
    CHECK_OK(handoff_activity_invalidate(a)); /* twice: harmless */
    CHECK_EQ_INT(handoff_activity_is_invalidated(a), 1);
    CHECK_OK(handoff_application_resign_current(app, a)); /* not current: nothing */

    /* Invalidating a non-current activity leaves the current one alone. */
    CHECK_OK(handoff_application_become_current(app, b));
    handoff_activity_free(a);
    a = make_activity('C');
    if (a != NULL) {
        CHECK_OK(handoff_activity_invalidate(a));
        CHECK_STATUS(handoff_application_become_current(app, a), HANDOFF_E_INVALID_STATE);
    }
    current = handoff_application_copy_current_activity(app);
    CHECK(current == b);
    handoff_activity_free(current);
    CHECK_EQ_INT(handoff_activity_is_invalidated(b), 0);

    CHECK_EQ_INT(event_count(), 0);
    handoff_activity_free(a);
    handoff_activity_free(b);
    handoff_application_free(app);
    check_callback_hygiene();
}

static void test_current_activity_outlives_host_reference(void) {
    handoff_application *app;
    handoff_activity *a, *current;
    tag *delegate_tag;
    char id[64];
    reset_state();
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    delegate_tag = set_recording_delegate(a, 2);
    CHECK_OK(handoff_activity_set_title(a, "Still here"));
    snprintf(id, sizeof id, "%s", handoff_activity_get_id(a));
    CHECK_OK(handoff_application_become_current(app, a));
    handoff_activity_free(a); /* the application keeps a reference */
    CHECK_EQ_INT(destroy_count(delegate_tag), 0);

    current = handoff_application_copy_current_activity(app);
    if (CHECK(current != NULL)) {
        handoff_activity *again = handoff_application_copy_current_activity(app);
        CHECK(again == current); /* one pointer while the host holds one */
        handoff_activity_free(again);
        CHECK_EQ_STR(handoff_activity_get_type(current), ACTIVITY_TYPE);
        CHECK_EQ_STR(handoff_activity_get_title(current), "Still here");
        CHECK_EQ_STR(handoff_activity_get_id(current), id); /* the same activity */
        CHECK_OK(handoff_application_resign_current(app, current));
        CHECK_EQ_INT(destroy_count(delegate_tag), 0); /* `current` holds it */
        CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);
        handoff_activity_free(current);
    }
    /* Last reference gone: the delegate's user_data is destroyed. */
    CHECK_EQ_INT(destroy_count(delegate_tag), 1);

    /* Freeing the application releases a current activity it holds. */
    a = make_activity('B');
    if (a != NULL) {
        delegate_tag = set_recording_delegate(a, 3);
        CHECK_OK(handoff_application_become_current(app, a));
        handoff_activity_free(a);
        CHECK_EQ_INT(destroy_count(delegate_tag), 0);
    }
    handoff_application_free(app);
    CHECK_EQ_INT(destroy_count(delegate_tag), 1);
    CHECK_EQ_INT(event_count(), 0);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Destroy callbacks                                                        */
/* ------------------------------------------------------------------------ */

static void test_destroy_called_once(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    tag *app_tag, *rt, *d1, *d2, *d3;
    reset_state();
    app = make_app(&app_tag);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, &rt);

    /* Activity delegate: destroyed when replaced, removed, or the activity
     * goes away. */
    d1 = set_recording_delegate(a, 11);
    CHECK_EQ_INT(destroy_count(d1), 0);
    d2 = set_recording_delegate(a, 12);
    CHECK_EQ_INT(destroy_count(d1), 1);
    CHECK_EQ_INT(destroy_count(d2), 0);
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_all(), "u1@A w12@A d0@A");
    CHECK_OK(handoff_activity_set_delegate(a, NULL, NULL, NULL));
    CHECK_EQ_INT(destroy_count(d2), 1);
    CHECK_OK(handoff_activity_set_delegate(a, NULL, NULL, NULL)); /* none: harmless */
    d3 = set_recording_delegate(a, 13);

    CHECK_EQ_INT(destroy_count(app_tag), 0);
    CHECK_EQ_INT(destroy_count(rt), 0);
    handoff_responder_free(r);
    CHECK_EQ_INT(destroy_count(rt), 1);
    CHECK_EQ_INT(destroy_count(d3), 0);
    handoff_activity_free(a);
    CHECK_EQ_INT(destroy_count(d3), 1);
    handoff_application_free(app);
    CHECK_EQ_INT(destroy_count(app_tag), 1);

    /* Exactly once: nothing later calls any of them again. */
    CHECK_EQ_INT(destroy_count(d1), 1);
    CHECK_EQ_INT(destroy_count(d2), 1);
    CHECK_EQ_INT(destroy_count(d3), 1);
    CHECK_EQ_INT(destroy_count(rt), 1);
    CHECK_EQ_INT(destroy_count(app_tag), 1);

    /* An application with no delegate struct still destroys its user_data. */
    {
        tag *t = new_tag(20);
        handoff_manifest *m = make_manifest();
        app = handoff_application_new(m, NULL, t, tag_destroy);
        handoff_manifest_free(m);
        if (CHECK(app != NULL)) {
            CHECK_EQ_INT(destroy_count(t), 0);
            handoff_application_free(app);
            CHECK_EQ_INT(destroy_count(t), 1);
        }
    }
    check_callback_hygiene();
}

/* Freeing the application drops queued callbacks: none runs. */
static void test_app_free_drops_queued_callbacks(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    tag *app_tag, *rt, *dt;
    reset_state();
    app = make_app(&app_tag);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, &rt);
    dt = set_recording_delegate(a, 2);
    CHECK_OK(set_needs_save(a));
    CHECK(app_readable(app));
    handoff_responder_free(r);
    handoff_application_free(app);
    CHECK_EQ_INT(event_count(), 0);
    CHECK_EQ_INT(destroy_count(rt), 1);
    CHECK_EQ_INT(destroy_count(app_tag), 1);
    CHECK_EQ_INT(destroy_count(dt), 0);
    handoff_activity_free(a);
    CHECK_EQ_INT(destroy_count(dt), 1);
    CHECK_EQ_INT(event_count(), 0);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */
/* Argument errors and struct sizes                                         */
/* ------------------------------------------------------------------------ */

static void test_null_arguments(void) {
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    handoff_manifest *m;
    tag *t;
    handoff_application_delegate ad = recording_app_delegate();
    handoff_responder_callbacks rc = recording_responder_callbacks();
    handoff_activity_delegate d = recording_activity_delegate();
    reset_state();
    t = new_tag(9);
    app = make_app(NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = make_responder(app, 1, NULL, NULL);
    m = make_manifest();

    /* Activities. */
    CHECK(handoff_activity_ref(NULL) == NULL);
    CHECK_STATUS(handoff_activity_invalidate(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_activity_is_invalidated(NULL), 0);
    CHECK_STATUS(handoff_activity_set_delegate(NULL, &d, t, tag_destroy),
                 HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_set_flag(NULL, HANDOFF_ACTIVITY_NEEDS_SAVE, 1),
                 HANDOFF_E_INVALID_ARGUMENT);

    /* Applications. */
    CHECK_NULL_ERR(handoff_application_new(NULL, &ad, t, tag_destroy),
                   HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_application_new(NULL, NULL, NULL, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_application_get_fd(NULL), -1);
    CHECK_EQ_INT(handoff_application_next_timeout(NULL), -1);
    CHECK_STATUS(handoff_application_dispatch(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_run(NULL, 0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_run(NULL, -1), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_stop(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_become_current(NULL, a), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_become_current(app, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_become_current(NULL, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_resign_current(NULL, a), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_application_resign_current(app, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_application_copy_current_activity(NULL), HANDOFF_E_INVALID_ARGUMENT);

    /* Responders and restoration. */
    CHECK_NULL_ERR(handoff_responder_new(NULL, &rc, t, tag_destroy),
                   HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_responder_new(app, NULL, t, tag_destroy), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_responder_new(NULL, NULL, NULL, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_responder_set_user_activity(NULL, a), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_responder_set_user_activity(NULL, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_responder_copy_user_activity(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_responder_copy_user_activity(r), HANDOFF_E_NOT_FOUND);
    CHECK_STATUS(handoff_restoration_handler_restore(NULL, NULL, 0), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_restoration_handler_restore(NULL, &r, 1), HANDOFF_E_INVALID_ARGUMENT);

    /* Every *_free accepts NULL. */
    handoff_application_free(NULL);
    handoff_responder_free(NULL);
    handoff_restoration_handler_free(NULL);
    handoff_activity_free(NULL);
    handoff_manifest_free(NULL);
    handoff_free(NULL);

    /* No failed call took ownership of the user_data. */
    CHECK_EQ_INT(destroy_count(t), 0);
    /* ...and none of it ran a callback or queued anything. */
    CHECK_EQ_INT(event_count(), 0);
    CHECK(!app_readable(app));

    handoff_manifest_free(m);
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    CHECK_EQ_INT(destroy_count(t), 0);
    check_callback_hygiene();
}

static void test_bad_struct_sizes(void) {
    static const size_t bad_sizes[] = {0, 1, 999999, (size_t)-1};
    handoff_application *app;
    handoff_activity *a;
    handoff_manifest *m;
    handoff_responder *r;
    tag *t, *good;
    size_t i;
    reset_state();
    t = new_tag(9);
    m = make_manifest();
    app = make_app(NULL);
    a = make_activity('A');
    if (m == NULL || app == NULL || a == NULL) return;
    r = make_responder(app, 1, a, NULL);
    good = set_recording_delegate(a, 2);

    for (i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        handoff_application_delegate ad = HANDOFF_APPLICATION_DELEGATE_INIT;
        handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
        handoff_activity_delegate d = HANDOFF_ACTIVITY_DELEGATE_INIT;
        ad = recording_app_delegate();
        rc = recording_responder_callbacks();
        d = recording_activity_delegate();
        ad.size = rc.size = d.size = bad_sizes[i];
        CHECK_NULL_ERR(handoff_application_new(m, &ad, t, tag_destroy), HANDOFF_E_INVALID_ARGUMENT);
        CHECK_NULL_ERR(handoff_responder_new(app, &rc, t, tag_destroy), HANDOFF_E_INVALID_ARGUMENT);
        CHECK_STATUS(handoff_activity_set_delegate(a, &d, t, tag_destroy),
                     HANDOFF_E_INVALID_ARGUMENT);
        if (destroy_count(t) != 0) CHECK_FAIL("destroy called after a failed call, size %zu", bad_sizes[i]);
    }
    CHECK_EQ_INT(destroy_count(t), 0);
    /* A refused delegate did not replace the one set before. */
    CHECK_EQ_INT(destroy_count(good), 0);
    save_and_dispatch(app, a);
    CHECK_EQ_STR(log_all(), "u1@A w2@A d0@A");

    handoff_responder_free(r);
    handoff_activity_free(a);
    CHECK_EQ_INT(destroy_count(good), 1);
    handoff_application_free(app);
    handoff_manifest_free(m);
    CHECK_EQ_INT(destroy_count(t), 0);
    check_callback_hygiene();
}

/* Structs from an older header, whose size covers only the first callback:
 * accepted, and the callbacks past `size` are never called even if the
 * memory there holds a function pointer. */
static void test_older_struct_sizes(void) {
    handoff_application_delegate ad = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_activity_delegate d = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    tag *app_tag, *rt, *dt;
    reset_state();
    ad = recording_app_delegate(); /* did_update_user_activity is set... */
    ad.size = offsetof(handoff_application_delegate, continue_user_activity); /* ...but past size */
    rc = recording_responder_callbacks();
    rc.size = offsetof(handoff_responder_callbacks, restore_user_activity_state);
    d = recording_activity_delegate();
    d.size = offsetof(handoff_activity_delegate, user_activity_was_continued);

    app_tag = new_tag(0);
    app = make_app_with(&ad, app_tag);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    rt = new_tag(1);
    r = handoff_responder_new(app, &rc, rt, tag_destroy);
    if (!CHECK(r != NULL)) return;
    rt->handle = r;
    CHECK_OK(handoff_responder_set_user_activity(r, a));
    dt = new_tag(2);
    CHECK_OK(handoff_activity_set_delegate(a, &d, dt, tag_destroy));

    save_and_dispatch(app, a);
    /* update and user_activity_will_save (covered) run;
     * did_update_user_activity (not covered) does not. */
    CHECK_EQ_STR(log_all(), "u1@A w2@A");
    CHECK(!app_readable(app));

    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    CHECK_EQ_INT(destroy_count(app_tag), 1);
    CHECK_EQ_INT(destroy_count(rt), 1);
    CHECK_EQ_INT(destroy_count(dt), 1);
    check_callback_hygiene();
}

/* The _INIT macros give the current sizes and no callbacks: a save with
 * such structs runs nothing but still completes. */
static void test_init_macros(void) {
    handoff_application_delegate ad = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_activity_delegate d = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_application *app;
    handoff_activity *a;
    handoff_responder *r;
    reset_state();
    CHECK_EQ_INT(ad.size, sizeof(handoff_application_delegate));
    CHECK_EQ_INT(rc.size, sizeof(handoff_responder_callbacks));
    CHECK_EQ_INT(d.size, sizeof(handoff_activity_delegate));
    app = make_app_with(&ad, NULL);
    a = make_activity('A');
    if (app == NULL || a == NULL) return;
    r = handoff_responder_new(app, &rc, NULL, NULL);
    CHECK(r != NULL);
    CHECK_OK(handoff_responder_set_user_activity(r, a));
    CHECK_OK(handoff_activity_set_delegate(a, &d, NULL, NULL));
    CHECK_OK(set_needs_save(a));
    CHECK(app_readable(app));
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(needs_save(a), 0);
    CHECK(!app_readable(app));
    CHECK_EQ_INT(event_count(), 0);
    handoff_responder_free(r);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* Asking for continuation streams: refused at once, with the callback never
 * called, for bad arguments and for activities that cannot have them (the
 * network side is Tests/integration/test_streams.py). */
static int stream_callbacks;

static void count_stream(handoff_activity *activity, int fd, int error, const char *message, void *user_data) {
    (void)activity; (void)error; (void)message; (void)user_data;
    if (fd >= 0) close(fd);
    stream_callbacks++;
}

static void test_continuation_stream_refusals(void) {
    handoff_application *app;
    handoff_activity *a;
    reset_state();
    stream_callbacks = 0;
    app = make_app(NULL);
    if (app == NULL) return;
    a = handoff_activity_new("com.example.test.edit");
    CHECK_STATUS(handoff_activity_get_continuation_streams(NULL, count_stream, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_activity_get_continuation_streams(a, NULL, NULL), HANDOFF_E_INVALID_ARGUMENT);
    /* No support for streams. */
    CHECK_STATUS(handoff_activity_get_continuation_streams(a, count_stream, NULL), HANDOFF_E_INVALID_STATE);
    CHECK(strstr(handoff_last_error_message(), "does not support continuation streams") != NULL);
    /* Support, but the activity was made here, not continued from a device. */
    CHECK_STATUS(handoff_activity_set_flag(a, HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, 1), HANDOFF_OK);
    CHECK_STATUS(handoff_activity_get_continuation_streams(a, count_stream, NULL), HANDOFF_E_INVALID_STATE);
    CHECK_STATUS(handoff_application_become_current(app, a), HANDOFF_OK);
    CHECK_STATUS(handoff_activity_get_continuation_streams(a, count_stream, NULL), HANDOFF_E_INVALID_STATE);
    CHECK(strstr(handoff_last_error_message(), "continued") != NULL);
    /* Invalidated. */
    CHECK_STATUS(handoff_activity_invalidate(a), HANDOFF_OK);
    CHECK_STATUS(handoff_activity_get_continuation_streams(a, count_stream, NULL), HANDOFF_E_INVALID_STATE);
    CHECK_STATUS(handoff_application_dispatch(app), HANDOFF_OK);
    CHECK_EQ_INT(stream_callbacks, 0);
    handoff_activity_free(a);
    handoff_application_free(app);
    check_callback_hygiene();
}

/* ------------------------------------------------------------------------ */

/* What a deletion's done heard: how often, the last status and message. */
struct deletion_heard {
    int calls;
    int status;
    char message[256];
};

static void deletion_done(void *context, int status) {
    struct deletion_heard *h = context;
    h->calls += 1;
    h->status = status;
    snprintf(h->message, sizeof h->message, "%s", status ? handoff_last_error_message() : "");
}

/* The history is the agent's (docs/history.md): without continuity through
 * one, done hears HANDOFF_E_CONNECTION_UNAVAILABLE, once, in dispatch;
 * arguments out of bounds fail at once and done is never called. */
static void test_delete_saved_activities_without_an_agent(void) {
    handoff_application *app = make_app(NULL);
    static const char *const ids[] = {"doc-1", "doc-2"};
    const char *bad[] = {""};
    struct deletion_heard some = {0}, all = {0}, none = {0}, refused = {0};
    char long_id[4098];
    if (!app) return;
    CHECK_OK(handoff_application_delete_saved_activities(app, ids, 2, deletion_done, &some));
    CHECK_OK(handoff_application_delete_all_saved_activities(app, deletion_done, &all));
    CHECK_OK(handoff_application_delete_saved_activities(app, NULL, 0, deletion_done, &none));
    CHECK_OK(handoff_application_delete_saved_activities(app, ids, 1, NULL, NULL));  /* done may be NULL */
    CHECK_EQ_INT(some.calls + all.calls + none.calls, 0);  /* on the main thread, later */
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(some.calls, 1);
    CHECK_EQ_INT(some.status, HANDOFF_E_CONNECTION_UNAVAILABLE);
    CHECK(strstr(some.message, "agent") != NULL);
    CHECK_EQ_INT(all.calls, 1);
    CHECK_EQ_INT(all.status, HANDOFF_E_CONNECTION_UNAVAILABLE);
    CHECK_EQ_INT(none.calls, 1);
    CHECK_EQ_INT(none.status, HANDOFF_OK);
    memset(long_id, 'x', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = 0;
    CHECK_EQ_INT(handoff_application_delete_saved_activities(app, bad, 1, deletion_done, &refused),
                 HANDOFF_E_INVALID_ARGUMENT);
    bad[0] = long_id;
    CHECK_EQ_INT(handoff_application_delete_saved_activities(app, bad, 1, deletion_done, &refused),
                 HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_application_delete_saved_activities(app, NULL, 1, deletion_done, &refused),
                 HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_application_delete_all_saved_activities(NULL, deletion_done, &refused),
                 HANDOFF_E_INVALID_ARGUMENT);
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(refused.calls, 0);
    handoff_application_free(app);
}

int main(int argc, char **argv) {
    check_init(argc, argv);
    CHECK_RUN(test_fd_idle);
    CHECK_RUN(test_fd_readable_while_save_pending);
    CHECK_RUN(test_poll_loop_with_worker_thread);
    CHECK_RUN(test_callbacks_only_inside_dispatch);
    CHECK_RUN(test_coalescing);
    CHECK_RUN(test_save_collects_state);
    CHECK_RUN(test_responder_order_and_switching);
    CHECK_RUN(test_responder_keeps_activity);
    CHECK_RUN(test_free_responder_from_callback);
    CHECK_RUN(test_identity);
    CHECK_RUN(test_reentrancy);
    CHECK_RUN(test_dispatch_inside_every_callback);
    CHECK_RUN(test_dispatch_off_main_thread);
    CHECK_RUN(test_calls_from_other_threads);
    CHECK_RUN(test_stop_from_other_thread_ends_run);
    CHECK_RUN(test_stop_during_dispatch_leaves_fd_quiet);
    CHECK_RUN(test_stop_before_run);
    CHECK_RUN(test_run_times_out);
    CHECK_RUN(test_run_dispatches);
    CHECK_RUN(test_current_activity);
    CHECK_RUN(test_invalidate);
    CHECK_RUN(test_current_activity_outlives_host_reference);
    CHECK_RUN(test_destroy_called_once);
    CHECK_RUN(test_app_free_drops_queued_callbacks);
    CHECK_RUN(test_null_arguments);
    CHECK_RUN(test_bad_struct_sizes);
    CHECK_RUN(test_older_struct_sizes);
    CHECK_RUN(test_init_macros);
    CHECK_RUN(test_continuation_stream_refusals);
    CHECK_RUN(test_delete_saved_activities_without_an_agent);
    return check_finish();
}
