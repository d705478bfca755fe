/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* test_glib.c - include/handoff-glib.h driving real GMainLoops: a queued
 * callback dispatched through the GSource, a library timer waking the loop
 * through the fd alone (no timeout anywhere but the watchdog), a handoff
 * between two applications on loopback run entirely by one GMainLoop, and
 * a source attached to the wrong thread's context removing itself instead
 * of spinning. Every wait is a GMainLoop run that the awaited event ends;
 * a 60-second watchdog source only turns a hang into a failure. */
#include "../c/check_handoff.h"

#include <handoff-glib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TYPE "com.example.glib.edit"
#define WATCHDOG_SECONDS 60

static const unsigned char account_key[32] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
                                              7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 3};

static int fd_readable(int fd) {
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

struct wait {
    GMainLoop *loop;
    int watchdog_fired;
};

static gboolean quit_on_watchdog(gpointer data) {
    struct wait *w = data;
    w->watchdog_fired = 1;
    g_main_loop_quit(w->loop);
    return G_SOURCE_REMOVE;
}

/* Runs the default loop until something quits it; 0 when the watchdog did. */
static int run_loop(struct wait *w) {
    guint dog = g_timeout_add_seconds(WATCHDOG_SECONDS, quit_on_watchdog, w);
    g_main_loop_run(w->loop);
    if (!w->watchdog_fired) g_source_remove(dog);
    return !w->watchdog_fired;
}

static handoff_manifest *make_manifest(void) {
    handoff_manifest *m = handoff_manifest_new("com.example.glib", "GLIB1");
    if (m != NULL) handoff_manifest_declare_activity_type(m, TYPE);
    return m;
}

/* ---------------------------------------------------------------- saves */

struct saving {
    struct wait w;
    int will_save;
    int dispatches; /* the source's callback: once per dispatch */
    int quit_after; /* quit the loop after this many dispatches */
};

static void on_will_save(handoff_activity *activity, void *user_data) {
    (void)activity;
    ((struct saving *)user_data)->will_save++;
}

static gboolean after_dispatch(gpointer data) {
    struct saving *s = data;
    s->dispatches++;
    if (s->dispatches >= s->quit_after) g_main_loop_quit(s->w.loop);
    return G_SOURCE_CONTINUE;
}

static void test_a_queued_callback_is_dispatched_by_the_source(void) {
    struct saving s;
    handoff_manifest *m = make_manifest();
    handoff_application *app = handoff_application_new(m, NULL, NULL, NULL);
    handoff_activity *activity = handoff_activity_new(TYPE);
    handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_responder *responder = app ? handoff_responder_new(app, &rc, NULL, NULL) : NULL;
    GSource *source;
    memset(&s, 0, sizeof s);
    s.w.loop = g_main_loop_new(NULL, FALSE);
    s.quit_after = 1;
    if (!CHECK(app && activity && responder)) return;
    ad.user_activity_will_save = on_will_save;
    CHECK_OK(handoff_activity_set_delegate(activity, &ad, &s, NULL));
    CHECK_OK(handoff_responder_set_user_activity(responder, activity));

    source = handoff_glib_source_new(app);
    g_source_set_callback(source, after_dispatch, &s, NULL);
    g_source_attach(source, NULL);
    CHECK_EQ_STR(g_source_get_name(source), "handoff");

    /* Idle: an iteration finds nothing to dispatch. */
    CHECK(!g_main_context_iteration(NULL, FALSE));
    CHECK_EQ_INT(s.dispatches, 0);

    CHECK_OK(handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1));
    CHECK_EQ_INT(s.will_save, 0); /* only inside dispatch */
    CHECK(run_loop(&s.w));
    CHECK_EQ_INT(s.will_save, 1);
    CHECK_EQ_INT(s.dispatches, 1);
    /* Dispatched: the fd is quiet and the loop does not spin. */
    CHECK(!fd_readable(handoff_application_get_fd(app)));
    CHECK(!g_main_context_iteration(NULL, FALSE));
    CHECK_EQ_INT(s.dispatches, 1);

    g_source_destroy(source);
    g_source_unref(source);
    handoff_responder_free(responder);
    handoff_activity_free(activity);
    handoff_application_free(app);
    handoff_manifest_free(m);
    g_main_loop_unref(s.w.loop);
}

/* ---------------------------------------------------------------- timers */

/* The library's only timer today: a current activity's expiration date.
 * With no callback queued (next_timeout > 0) the loop's only wake-up is the
 * fd turning readable when the timer is due; the source then dispatches it
 * and nothing stays scheduled. */
static void test_a_due_timer_wakes_the_loop_through_the_fd_alone(void) {
    struct saving s;
    handoff_manifest *m = make_manifest();
    handoff_application *app = handoff_application_new(m, NULL, NULL, NULL);
    handoff_activity *activity = handoff_activity_new(TYPE);
    GSource *source;
    int before;
    memset(&s, 0, sizeof s);
    s.w.loop = g_main_loop_new(NULL, FALSE);
    s.quit_after = 1;
    if (!CHECK(app && activity)) return;
    CHECK_OK(handoff_activity_set_expiration_date(activity, (double)time(NULL) + 1.0));
    CHECK_OK(handoff_application_become_current(app, activity));
    /* Whatever becoming current queued runs first, outside the loop. */
    CHECK_OK(handoff_application_dispatch(app));
    before = handoff_application_next_timeout(app);
    CHECK(before > 0);  /* a timer, and no callback, is pending */
    CHECK(!fd_readable(handoff_application_get_fd(app)));

    source = handoff_glib_source_new(app);
    g_source_set_callback(source, after_dispatch, &s, NULL);
    g_source_attach(source, NULL);
    CHECK(run_loop(&s.w)); /* the source (no timeout of its own) ended it */
    CHECK_EQ_INT(s.dispatches, 1);
    CHECK_EQ_INT(handoff_application_next_timeout(app), -1); /* the timer ran */
    CHECK(!fd_readable(handoff_application_get_fd(app)));

    g_source_destroy(source);
    g_source_unref(source);
    handoff_activity_free(activity);
    handoff_application_free(app);
    handoff_manifest_free(m);
    g_main_loop_unref(s.w.loop);
}

/* ---------------------------------------------------------------- a handoff */

struct side {
    handoff_application *app;
    handoff_responder *responder;
    char log[256];
};

static struct side sender, receiver;
static struct wait handoff_wait;

static void note(struct side *s, const char *what) {
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s%s", n ? " " : "", what);
}

static void on_available(handoff_application *app, const handoff_remote_activity *r, void *ud) {
    note(ud, "available");
    CHECK_OK(handoff_application_continue(app, handoff_remote_activity_get_id(r)));
}

static int on_will_continue(handoff_application *app, const char *type, void *ud) {
    (void)app;
    CHECK_EQ_STR(type, TYPE);
    note(ud, "will");
    return 1;
}

static int on_continue(handoff_application *app, handoff_activity *a, handoff_restoration_handler *h,
                       void *ud) {
    struct side *s = ud;
    handoff_responder *responders[1];
    (void)app;
    (void)a;
    note(s, "continue");
    responders[0] = s->responder;
    CHECK_OK(handoff_restoration_handler_restore(h, responders, 1));
    handoff_restoration_handler_free(h);
    return 1;
}

static void on_fail(handoff_application *app, const char *type, int error, const char *message,
                    void *ud) {
    (void)app;
    (void)type;
    fprintf(stdout, "  did_fail_to_continue_user_activity: %d %s\n", error, message);
    note(ud, "fail");
    g_main_loop_quit(handoff_wait.loop);
}

static void on_restore(handoff_responder *r, handoff_activity *a, void *ud) {
    (void)r;
    CHECK_EQ_STR(handoff_activity_get_title(a), "Draft");
    note(ud, "restore");
}

static void on_was_continued(handoff_activity *a, void *ud) {
    (void)a;
    note(ud, "was-continued");
    g_main_loop_quit(handoff_wait.loop);
}

static int free_udp_port(void) {
    struct sockaddr_in a;
    socklen_t length = sizeof a;
    int port = -1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &length) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

static handoff_application *make_side(struct side *s, const char *device_id, int port, int peer_port) {
    char peer[32];
    const char *peers[1];
    handoff_manifest *m = make_manifest();
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    handoff_account *account = handoff_account_from_key(account_key, sizeof account_key);
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_application *app;
    d.activity_available = on_available;
    d.will_continue_user_activity = on_will_continue;
    d.continue_user_activity = on_continue;
    d.did_fail_to_continue_user_activity = on_fail;
    app = handoff_application_new(m, &d, s, NULL);
    snprintf(peer, sizeof peer, "127.0.0.1:%d", peer_port);
    peers[0] = peer;
    o.account = account;
    o.device_id = device_id; /* two devices in one process */
    o.beacon_port = port;
    o.disable_multicast = 1;
    o.peers = peers;
    o.peer_count = 1;
    o.channel_address = "127.0.0.1:0";
    if (!CHECK(app != NULL) || !CHECK(handoff_application_start_continuity(app, &o) == HANDOFF_OK)) {
        fprintf(stdout, "  set-up: %s\n", handoff_last_error_message());
    }
    rc.restore_user_activity_state = on_restore;
    s->responder = app ? handoff_responder_new(app, &rc, s, NULL) : NULL;
    handoff_account_free(account);
    handoff_manifest_free(m);
    return app;
}

static void test_a_handoff_between_two_applications_runs_on_one_glib_loop(void) {
    int sender_port = free_udp_port(), receiver_port = free_udp_port();
    handoff_activity *activity;
    handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
    guint sender_source, receiver_source;
    memset(&sender, 0, sizeof sender);
    memset(&receiver, 0, sizeof receiver);
    memset(&handoff_wait, 0, sizeof handoff_wait);
    if (!CHECK(sender_port > 0 && receiver_port > 0 && sender_port != receiver_port)) return;
    handoff_wait.loop = g_main_loop_new(NULL, FALSE);
    receiver.app = make_side(&receiver, "0000000000000000000000000000911b", receiver_port, sender_port);
    sender.app = make_side(&sender, "0000000000000000000000000000911a", sender_port, receiver_port);
    if (!CHECK(sender.app && receiver.app)) return;
    sender_source = handoff_glib_add(sender.app);
    receiver_source = handoff_glib_add(receiver.app);
    CHECK(sender_source != 0 && receiver_source != 0);

    activity = handoff_activity_new(TYPE);
    CHECK_OK(handoff_activity_set_title(activity, "Draft"));
    ad.user_activity_was_continued = on_was_continued;
    CHECK_OK(handoff_activity_set_delegate(activity, &ad, &sender, NULL));
    CHECK_OK(handoff_application_become_current(sender.app, activity));

    /* Beacon, availability, continue, fetch, restore, confirmation: all
     * through the two sources, until the sender hears it was continued. */
    CHECK(run_loop(&handoff_wait));
    CHECK_EQ_STR(receiver.log, "available will continue restore");
    CHECK_EQ_STR(sender.log, "was-continued");

    g_source_remove(sender_source);
    g_source_remove(receiver_source);
    handoff_activity_free(activity);
    handoff_responder_free(sender.responder);
    handoff_responder_free(receiver.responder);
    handoff_application_free(sender.app);
    handoff_application_free(receiver.app);
    g_main_loop_unref(handoff_wait.loop);
}

/* ---------------------------------------------------------------- wrong thread */

static int criticals;

static void count_critical(const gchar *domain, GLogLevelFlags level, const gchar *message,
                           gpointer data) {
    (void)domain;
    (void)level;
    (void)data;
    if (strstr(message, "HANDOFF_E_WRONG_THREAD") || strstr(message, "main thread")) criticals++;
    else fprintf(stdout, "  unexpected critical: %s\n", message);
}

struct other_thread {
    GMainContext *context;
    GSource *source;
    int iterations;
};

static gboolean stop_waiting(gpointer data) {
    *(int *)data = 1;
    return G_SOURCE_REMOVE;
}

static void *iterate_other_context(void *arg) {
    struct other_thread *t = arg;
    int timed_out = 0;
    GSource *dog = g_timeout_source_new_seconds(WATCHDOG_SECONDS);
    g_source_set_callback(dog, stop_waiting, &timed_out, NULL);
    g_source_attach(dog, t->context);
    g_main_context_push_thread_default(t->context);
    while (!g_source_is_destroyed(t->source) && !timed_out && t->iterations < 1000) {
        g_main_context_iteration(t->context, TRUE);
        t->iterations++;
    }
    g_main_context_pop_thread_default(t->context);
    g_source_destroy(dog);
    g_source_unref(dog);
    return NULL;
}

static void test_a_source_on_another_threads_context_removes_itself(void) {
    struct saving s;
    struct other_thread t;
    pthread_t thread;
    handoff_manifest *m = make_manifest();
    handoff_application *app = handoff_application_new(m, NULL, NULL, NULL);
    handoff_activity *activity = handoff_activity_new(TYPE);
    handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_responder *responder = app ? handoff_responder_new(app, &rc, NULL, NULL) : NULL;
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    if (!CHECK(app && activity && responder)) return;
    ad.user_activity_will_save = on_will_save;
    CHECK_OK(handoff_activity_set_delegate(activity, &ad, &s, NULL));
    CHECK_OK(handoff_responder_set_user_activity(responder, activity));
    CHECK_OK(handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1));
    g_log_set_handler("handoff", G_LOG_LEVEL_CRITICAL, count_critical, NULL);

    t.context = g_main_context_new();
    t.source = handoff_glib_source_new(app);
    s.quit_after = 1000;
    g_source_set_callback(t.source, after_dispatch, &s, NULL);
    g_source_attach(t.source, t.context);
    CHECK_EQ_INT(pthread_create(&thread, NULL, iterate_other_context, &t), 0);
    pthread_join(thread, NULL);

    CHECK(g_source_is_destroyed(t.source)); /* removed itself... */
    CHECK_EQ_INT(t.iterations, 1);          /* ...at its first dispatch */
    CHECK_EQ_INT(criticals, 1);
    CHECK_EQ_INT(s.dispatches, 0); /* the callback is not called */
    CHECK_EQ_INT(s.will_save, 0);  /* nothing ran on the wrong thread */
    CHECK_OK(handoff_application_dispatch(app)); /* the main thread still can */
    CHECK_EQ_INT(s.will_save, 1);

    g_source_unref(t.source);
    g_main_context_unref(t.context);
    handoff_responder_free(responder);
    handoff_activity_free(activity);
    handoff_application_free(app);
    handoff_manifest_free(m);
}

int main(int argc, char **argv) {
    check_init(argc, argv);
    CHECK_RUN(test_a_queued_callback_is_dispatched_by_the_source);
    CHECK_RUN(test_a_due_timer_wakes_the_loop_through_the_fd_alone);
    CHECK_RUN(test_a_handoff_between_two_applications_runs_on_one_glib_loop);
    CHECK_RUN(test_a_source_on_another_threads_context_removes_itself);
    return check_finish();
}
