/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The restoration handler and the failure contract through the header,
 * over a real handoff: a sender and a receiver application in this process,
 * both driven from this (main) thread, joined by continuity on loopback. */
#include "check.h"

#include <handoff.h>

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TYPE "com.example.notes.edit"

static const unsigned char account_key[32] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
                                              9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1};

struct side {
    handoff_application *app;
    char log[512];
    char available_id[64];
    handoff_restoration_handler *kept; /* a handler the test keeps */
    int keep_handler;                  /* 1: keep it; 0: free it unused */
    int return_value;                  /* what continue_user_activity returns */
    int failures, last_error;
    int handoff_failures, handoff_error; /* sender: its did_fail_to_hand_off */
    char handoff_message[256];
};

static void note(struct side *s, const char *what)
{
    size_t n = strlen(s->log);
    snprintf(s->log + n, sizeof s->log - n, "%s%s", n ? " " : "", what);
}

static void on_available(handoff_application *app, const handoff_remote_activity *r, void *ud)
{
    struct side *s = ud;
    (void)app;
    snprintf(s->available_id, sizeof s->available_id, "%s", handoff_remote_activity_get_id(r));
}

static int on_will_continue(handoff_application *app, const char *type, void *ud)
{
    (void)app;
    (void)type;
    note(ud, "will");
    return 1;
}

static int on_continue(handoff_application *app, handoff_activity *a, handoff_restoration_handler *h, void *ud)
{
    struct side *s = ud;
    (void)app;
    (void)a;
    note(s, "continue");
    if (s->keep_handler)
        s->kept = h;
    else
        handoff_restoration_handler_free(h); /* released unused */
    return s->return_value;
}

static void on_fail(handoff_application *app, const char *type, int error, const char *message, void *ud)
{
    struct side *s = ud;
    (void)app;
    (void)type;
    (void)message;
    s->failures++;
    s->last_error = error;
    note(s, "fail");
}

static void on_restore(handoff_responder *r, handoff_activity *a, void *ud)
{
    (void)r;
    (void)a;
    note(ud, "restore");
}

static void on_restore_second(handoff_responder *r, handoff_activity *a, void *ud)
{
    (void)r;
    (void)a;
    note(ud, "restore2");
}

static void on_was_continued(handoff_activity *a, void *ud)
{
    (void)a;
    note(ud, "was-continued");
}

static void on_did_fail_to_hand_off(handoff_activity *a, int error, const char *message, void *ud)
{
    struct side *s = ud;
    (void)a;
    s->handoff_failures++;
    s->handoff_error = error;
    snprintf(s->handoff_message, sizeof s->handoff_message, "%s", message ? message : "(null)");
    note(s, "did-fail-to-hand-off");
}

/* usleep is not POSIX.1-2008; nanosleep is. */
static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static struct side sender, receiver;
static handoff_activity *activity;

/* Dispatches both applications until `done` or ~5 s. */
static int pump(int (*done)(void))
{
    int i;
    for (i = 0; i < 2500 && !done(); i++) {
        handoff_application_dispatch(sender.app);
        handoff_application_dispatch(receiver.app);
        sleep_ms(2);
    }
    return done();
}

static int have_available(void) { return receiver.available_id[0] != 0; }
static int have_outcome(void) { return strstr(receiver.log, "continue") || receiver.failures; }

static handoff_application *make_app(struct side *s, int port, int peer_port)
{
    char peer[32];
    const char *peers[1];
    handoff_manifest *m = handoff_manifest_new("com.example.notes", "NOTES1");
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    handoff_account *account = handoff_account_from_key(account_key, sizeof account_key);
    handoff_application *app;
    handoff_manifest_declare_activity_type(m, TYPE);
    d.activity_available = on_available;
    d.will_continue_user_activity = on_will_continue;
    d.continue_user_activity = on_continue;
    d.did_fail_to_continue_user_activity = on_fail;
    app = handoff_application_new(m, &d, s, NULL);
    snprintf(peer, sizeof peer, "127.0.0.1:%d", peer_port);
    peers[0] = peer;
    o.account = account;
    /* Two devices in one process: each its own id, not the device file's. */
    o.device_id = peer_port ? "000000000000000000000000000000a1" : "000000000000000000000000000000a2";
    o.beacon_port = port;
    o.disable_multicast = 1;
    o.peers = peers;
    o.peer_count = peer_port ? 1 : 0;
    o.channel_address = "127.0.0.1:0";
    o.fetch_timeout_ms = 1000;
    if (!app || handoff_application_start_continuity(app, &o) != HANDOFF_OK) {
        fprintf(stderr, "set-up failed: %s\n", handoff_last_error_message());
        exit(1);
    }
    handoff_account_free(account);
    handoff_manifest_free(m);
    return app;
}

static void set_up(void)
{
    int base = 30000 + (int)(getpid() % 15000) * 2;
    memset(&sender, 0, sizeof sender);
    memset(&receiver, 0, sizeof receiver);
    receiver.app = make_app(&receiver, base, 0);
    sender.app = make_app(&sender, base + 1, base);
    activity = handoff_activity_new(TYPE);
    handoff_activity_set_title(activity, "Shopping list");
    handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
    ad.user_activity_was_continued = on_was_continued;
    ad.user_activity_did_fail_to_hand_off = on_did_fail_to_hand_off;
    handoff_activity_set_delegate(activity, &ad, &sender, NULL);
    handoff_application_become_current(sender.app, activity);
}

static void tear_down(void)
{
    handoff_restoration_handler_free(receiver.kept);
    handoff_activity_free(activity);
    handoff_application_free(sender.app);
    handoff_application_free(receiver.app);
}

static void *restore_on_other_thread(void *arg)
{
    handoff_responder *responders[1] = {arg};
    static int status;
    status = handoff_restoration_handler_restore(receiver.kept, responders, 1);
    return &status;
}

static void test_kept_handler_later_once_main_thread_only(void)
{
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_responder_callbacks rc2 = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_responder *first, *second;
    handoff_responder *both[2];
    pthread_t thread;
    void *result;
    set_up();
    rc.restore_user_activity_state = on_restore;
    rc2.restore_user_activity_state = on_restore_second;
    first = handoff_responder_new(receiver.app, &rc, &receiver, NULL);
    second = handoff_responder_new(receiver.app, &rc2, &receiver, NULL);
    receiver.keep_handler = 1;
    receiver.return_value = 1;
    if (!CHECK(pump(have_available))) goto out;
    CHECK_EQ_INT(handoff_application_continue(receiver.app, receiver.available_id), HANDOFF_OK);
    if (!CHECK(pump(have_outcome))) goto out;
    CHECK_EQ_STR(receiver.log, "will continue");
    if (!CHECK(receiver.kept != NULL)) goto out;

    /* From another thread: refused, nothing restored. */
    pthread_create(&thread, NULL, restore_on_other_thread, first);
    pthread_join(thread, &result);
    CHECK_EQ_INT(*(int *)result, HANDOFF_E_WRONG_THREAD);
    CHECK_EQ_STR(receiver.log, "will continue");

    /* Later, on the main thread, outside dispatch: in order. */
    both[0] = second;
    both[1] = first;
    CHECK_EQ_INT(handoff_restoration_handler_restore(receiver.kept, both, 2), HANDOFF_OK);
    CHECK_EQ_STR(receiver.log, "will continue restore2 restore");
    /* Once only. */
    CHECK_EQ_INT(handoff_restoration_handler_restore(receiver.kept, both, 2), HANDOFF_E_INVALID_STATE);
    CHECK_EQ_STR(receiver.log, "will continue restore2 restore");
    /* Returning 1 confirmed: the sender hears it. */
    {
        int i;
        for (i = 0; i < 2500 && !strstr(sender.log, "was-continued"); i++) {
            handoff_application_dispatch(sender.app);
            sleep_ms(2);
        }
    }
    CHECK_EQ_STR(sender.log, "was-continued");
out:
    handoff_responder_free(first);
    handoff_responder_free(second);
    tear_down();
}

static void test_handler_released_unused(void)
{
    set_up();
    receiver.keep_handler = 0;
    receiver.return_value = 0;
    if (!CHECK(pump(have_available))) goto out;
    CHECK_EQ_INT(handoff_application_continue(receiver.app, receiver.available_id), HANDOFF_OK);
    if (!CHECK(pump(have_outcome))) goto out;
    CHECK_EQ_STR(receiver.log, "will continue");
    /* Returning 0: no confirmation reaches the sender. */
    {
        int i;
        for (i = 0; i < 150; i++) {
            handoff_application_dispatch(sender.app);
            sleep_ms(2);
        }
    }
    CHECK_EQ_STR(sender.log, "");
out:
    tear_down();
}

static void test_failure_contract_after_resign(void)
{
    int status;
    set_up();
    if (!CHECK(pump(have_available))) goto out;
    handoff_application_resign_current(sender.app, activity);
    /* Either the withdrawal arrived first, and the activity is not offered
     * any more (on loopback it may land before the next line), or the
     * fetch fails: never a continue. */
    status = handoff_application_continue(receiver.app, receiver.available_id);
    if (status == HANDOFF_E_NOT_FOUND) {
        int i;
        for (i = 0; i < 100; i++) { /* nothing may come: nothing was promised */
            handoff_application_dispatch(sender.app);
            handoff_application_dispatch(receiver.app);
            sleep_ms(2);
        }
        CHECK_EQ_STR(receiver.log, "");
        goto out;
    }
    CHECK_EQ_INT(status, HANDOFF_OK);
    if (!CHECK(pump(have_outcome))) goto out;
    CHECK(strstr(receiver.log, "continue") == NULL);
    CHECK_EQ_STR(receiver.log, "will fail");
    CHECK_EQ_INT(receiver.failures, 1);
    CHECK(receiver.last_error >= HANDOFF_USER_ACTIVITY_ERROR_MINIMUM &&
          receiver.last_error <= HANDOFF_USER_ACTIVITY_ERROR_MAXIMUM);
out:
    tear_down();
}

/* Continues the sender's current activity `times` times; each round
 * dispatches both until the sender's user_activity_was_continued arrives
 * (bounded). */
static int have_confirm_count;
static int enough_confirms(void)
{
    int n = 0;
    const char *p = sender.log;
    while ((p = strstr(p, "was-continued")) != NULL) {
        n++;
        p++;
    }
    return n >= have_confirm_count;
}

static int has_continue_count(void)
{
    int n = 0;
    const char *p = receiver.log;
    while ((p = strstr(p, "will continue")) != NULL) {
        n++;
        p++;
    }
    return n >= have_confirm_count;
}

static void test_every_continuation_is_heard(void)
{
    int round;
    set_up();
    receiver.return_value = 1;
    if (!CHECK(pump(have_available))) goto out;
    for (round = 1; round <= 5; round++) {
        have_confirm_count = round;
        CHECK_EQ_INT(handoff_application_continue(receiver.app, receiver.available_id), HANDOFF_OK);
        if (!CHECK(pump(has_continue_count))) goto out;
        if (!CHECK(pump(enough_confirms))) goto out;
    }
    CHECK_EQ_STR(sender.log, "was-continued was-continued was-continued was-continued was-continued");
    CHECK_EQ_INT(receiver.failures, 0);
out:
    tear_down();
}

static int sender_heard_failure(void) { return sender.handoff_failures > 0; }

/* A userInfo over the budget: the receiver gets 4611, and so does the
 * sender's activity delegate, where the activity was made. */
static void test_sender_hears_too_large(void)
{
    handoff_value *info = handoff_value_new_dictionary();
    static unsigned char blob[4000];
    handoff_value *data = handoff_value_new_data(blob, sizeof blob);
    set_up();
    handoff_value_dictionary_set(info, "blob", data);
    CHECK_EQ_INT(handoff_activity_add_user_info_entries(activity, info), HANDOFF_OK);
    receiver.return_value = 1;
    if (!CHECK(pump(have_available))) goto out;
    CHECK_EQ_INT(handoff_application_continue(receiver.app, receiver.available_id), HANDOFF_OK);
    if (!CHECK(pump(have_outcome))) goto out;
    CHECK_EQ_INT(receiver.last_error, HANDOFF_E_USER_INFO_TOO_LARGE);
    if (!CHECK(pump(sender_heard_failure))) goto out;
    CHECK_EQ_INT(sender.handoff_failures, 1);
    CHECK_EQ_INT(sender.handoff_error, HANDOFF_E_USER_INFO_TOO_LARGE);
    CHECK(strstr(sender.handoff_message, "3072") != NULL);
    CHECK_EQ_STR(sender.log, "did-fail-to-hand-off");
out:
    handoff_value_free(data);
    handoff_value_free(info);
    tear_down();
}

/* The sender's main thread does not dispatch while a fetch waits: the
 * receiver gets 4610 after the fetch timeout (1 s here); the sender hears
 * it when its main thread dispatches again. */
static void test_sender_hears_it_answered_too_late(void)
{
    int i;
    set_up();
    if (!CHECK(pump(have_available))) goto out;
    CHECK_EQ_INT(handoff_application_continue(receiver.app, receiver.available_id), HANDOFF_OK);
    for (i = 0; i < 5000 && !have_outcome(); i++) { /* ~10 s; only the receiver runs */
        handoff_application_dispatch(receiver.app);
        sleep_ms(2);
    }
    if (!CHECK(have_outcome())) goto out;
    CHECK_EQ_INT(receiver.last_error, HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT);
    CHECK_EQ_INT(sender.handoff_failures, 0);
    if (!CHECK(pump(sender_heard_failure))) goto out;
    CHECK_EQ_INT(sender.handoff_error, HANDOFF_E_REMOTE_APPLICATION_TIMED_OUT);
    CHECK(strstr(sender.handoff_message, "4610") != NULL);
    CHECK(strstr(sender.log, "was-continued") == NULL);
out:
    tear_down();
}

static void test_continue_unknown_id(void)
{
    set_up();
    CHECK_EQ_INT(handoff_application_continue(receiver.app, "0F8FAD5B-D9CB-469F-A165-70867728950E"),
                 HANDOFF_E_NOT_FOUND);
    CHECK_EQ_INT(handoff_application_continue(receiver.app, "not an id"), HANDOFF_E_INVALID_VALUE);
    CHECK_EQ_INT(handoff_application_continue(receiver.app, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_EQ_INT(handoff_application_continue(NULL, "x"), HANDOFF_E_INVALID_ARGUMENT);
    tear_down();
}

int main(int argc, char **argv)
{
    check_init(argc, argv);
    CHECK_RUN(test_kept_handler_later_once_main_thread_only);
    CHECK_RUN(test_handler_released_unused);
    CHECK_RUN(test_failure_contract_after_resign);
    CHECK_RUN(test_continue_unknown_id);
    CHECK_RUN(test_every_continuation_is_heard);
    CHECK_RUN(test_sender_hears_too_large);
    CHECK_RUN(test_sender_hears_it_answered_too_late);
    return check_finish();
}
