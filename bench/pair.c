/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The handoff pair (pair.h): its applications' callbacks and threads. */
#include "pair.h"
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

void poke(struct side *sd)
{
    char c = 1;
    if (write(sd->notify[1], &c, 1) < 0) {
        /* a full pipe already wakes the reader */
    }
}

/* ---- callbacks ---- */

/* Sender's responder: the save writes the current round tag. */
static void on_update(handoff_responder *r, handoff_activity *activity, void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->pair;
    (void)r;
    handoff_value *info = bench_user_info(atomic_load(&pr->round_tag));
    handoff_activity_add_user_info_entries(activity, info);
    handoff_value_free(info);
    atomic_store(&pr->last_save_ns, now_ns());
    atomic_fetch_add(&pr->saves, 1);
    if (atomic_load(&pr->ctl_wants)) {
        char c = 1;
        if (write(pr->ctl_notify[1], &c, 1) < 0) {
            /* full: the reader is awake anyway */
        }
    }
}

/* Receiver's responder: the restore ends the timed interval. */
static void on_restore(handoff_responder *r, handoff_activity *activity, void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->pair;
    int64_t t = now_ns();
    (void)r;
    handoff_value *info = handoff_activity_copy_user_info(activity);
    int64_t tag = -1;
    handoff_value_get_integer(handoff_value_dictionary_get(info, "round"), &tag);
    handoff_value_free(info);
    pr->t_restore = t;
    pr->restored = 1;
    pr->restored_tag = (long)tag;
}

static void on_was_continued(handoff_activity *activity, void *user_data)
{
    struct side *sd = user_data;
    (void)activity;
    atomic_store(&sd->pair->last_confirm_ns, now_ns());
    atomic_fetch_add(&sd->pair->confirms, 1);
    poke(&sd->pair->receiver);
}

static void on_available(handoff_application *app, const handoff_remote_activity *remote,
                         void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->pair;
    int64_t t = now_ns();
    const char *id = handoff_remote_activity_get_id(remote);
    const char *type = handoff_remote_activity_get_type(remote);
    (void)app;
    if (!id || !type)
        return;
    pthread_mutex_lock(&pr->lock);
    if (strcmp(type, ACTIVITY_TYPE) == 0) {
        snprintf(pr->remote_id, sizeof pr->remote_id, "%s", id);
        pr->have_remote = 1;
    } else if (strcmp(type, BEACON_TYPE) == 0 && pr->expect_round >= 0 &&
               strcasecmp(id, pr->expect_id) == 0) {
        int64_t zero = 0;
        atomic_compare_exchange_strong(&pr->b_avail[pr->expect_round], &zero, t);
        pthread_mutex_unlock(&pr->lock);
        poke(&pr->sender);
        return;
    }
    pthread_mutex_unlock(&pr->lock);
}

static int on_will_continue(handoff_application *app, const char *type, void *user_data)
{
    struct side *sd = user_data;
    (void)app;
    (void)type;
    sd->pair->t_will = now_ns();
    return 0;
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->pair;
    (void)app;
    (void)activity;
    pr->t_cont = now_ns();
    pr->outstanding--;
    handoff_restoration_handler_restore(handler, &sd->responder, 1);
    handoff_restoration_handler_free(handler);
    return 1;
}

static void on_fail(handoff_application *app, const char *type, int error, const char *message,
                    void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->pair;
    (void)app;
    (void)type;
    pr->outstanding--;
    pr->failed = 1;
    snprintf(pr->last_failure, sizeof pr->last_failure, "error %d: %s", error,
             message ? message : "");
}

/* ---- the side threads ---- */

static int side_setup(struct side *sd)
{
    struct pair *pr = sd->pair;
    handoff_manifest *m = bench_manifest(sd->error, sizeof sd->error);
    if (!m)
        return -1;
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    if (!sd->is_sender) {
        d.activity_available = on_available;
        d.activity_updated = on_available;
        d.will_continue_user_activity = on_will_continue;
        d.continue_user_activity = on_continue;
        d.did_fail_to_continue_user_activity = on_fail;
    }
    sd->app = handoff_application_new(m, &d, sd, NULL);
    handoff_manifest_free(m);
    if (!sd->app) {
        snprintf(sd->error, sizeof sd->error, "application_new: %s", handoff_last_error_message());
        return -1;
    }
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    rc.update_user_activity_state = on_update;
    rc.restore_user_activity_state = on_restore;
    sd->responder = handoff_responder_new(sd->app, &rc, sd, NULL);
    if (!sd->responder) {
        snprintf(sd->error, sizeof sd->error, "responder_new: %s", handoff_last_error_message());
        return -1;
    }
    if (sd->is_sender) {
        sd->activity = handoff_activity_new(ACTIVITY_TYPE);
        if (!sd->activity) {
            snprintf(sd->error, sizeof sd->error, "activity_new: %s", handoff_last_error_message());
            return -1;
        }
        const char *required[] = {"round"};
        handoff_activity_set_title(sd->activity, "bench viewport");
        handoff_activity_set_required_user_info_keys(sd->activity, required, 1);
        handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
        ad.user_activity_was_continued = on_was_continued;
        handoff_activity_set_delegate(sd->activity, &ad, sd, NULL);
        handoff_responder_set_user_activity(sd->responder, sd->activity);
        handoff_activity_set_flag(sd->activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
        if (handoff_application_become_current(sd->app, sd->activity) != HANDOFF_OK) {
            snprintf(sd->error, sizeof sd->error, "become_current: %s", handoff_last_error_message());
            return -1;
        }
    }
    handoff_account *account = handoff_account_from_key(bench_key, sizeof bench_key);
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    o.account = account;
    if (pr->agent && (!sd->is_sender || pr->agent_sender)) {
        /* The device-level settings are the agent's (its command line):
         * the app gives its account and how long its main thread has to
         * hand over an activity. The socket: HANDOFF_AGENT_SOCKET, set by
         * pair_start before this side starts. */
        o.mode = HANDOFF_CONTINUITY_MODE_AGENT;
        o.fetch_timeout_ms = 1500;
        int rc3 = handoff_application_start_continuity(sd->app, &o);
        handoff_account_free(account);
        if (rc3 != HANDOFF_OK) {
            snprintf(sd->error, sizeof sd->error, "start_continuity (agent): %s",
                     handoff_last_error_message());
            return -1;
        }
        return 0;
    }
    o.device_name = sd->is_sender ? "bench sender" : "bench receiver";
    /* Two devices in one process: each its own id (else both would be the
     * person's device from the device file, and ignore each other). */
    o.device_id = sd->is_sender ? "0000000000000000000000000000be01" : "0000000000000000000000000000be02";
    o.beacon_port = sd->beacon_port;
    o.disable_multicast = 1;
    o.peers = sd->peers;
    o.peer_count = sd->peer_count;
    o.channel_address = "127.0.0.1:0";
    o.fetch_timeout_ms = 1500;
    o.connect_timeout_ms = 1000;
    o.connection_reuse_ms = pr->reuse_ms;
    int rc2 = handoff_application_start_continuity(sd->app, &o);
    handoff_account_free(account);
    if (rc2 != HANDOFF_OK) {
        snprintf(sd->error, sizeof sd->error, "start_continuity: %s", handoff_last_error_message());
        return -1;
    }
    return 0;
}

static void side_teardown(struct side *sd)
{
    struct pair *pr = sd->pair;
    if (sd->is_sender) {
        handoff_activity_free(pr->b_activity);
        pr->b_activity = NULL;
    }
    handoff_responder_free(sd->responder);
    handoff_activity_free(sd->activity);
    handoff_application_free(sd->app);
    sd->responder = NULL;
    sd->app = NULL;
}

static void *side_main(void *arg)
{
    struct side *sd = arg;
    struct pair *pr = sd->pair;
    if (side_setup(sd) != 0) {
        atomic_store(&sd->ready, -1);
        side_teardown(sd);
        return NULL;
    }
    atomic_store(&sd->ready, 1);
    struct pollfd p[2] = {{handoff_application_get_fd(sd->app), POLLIN, 0},
                          {sd->notify[0], POLLIN, 0}};
    while (!atomic_load(&pr->stop)) {
        int cap = 50, phase = atomic_load(&pr->phase);
        if (sd->is_sender && phase == PH_BEACON)
            cap = sender_beacon_step(pr);
        else if (!sd->is_sender && phase == PH_CONTINUE)
            cap = receiver_continue_step(pr);
        int wait = handoff_application_next_timeout(sd->app);
        if (wait < 0 || wait > cap)
            wait = cap;
        if (poll(p, 2, wait) > 0 && (p[1].revents & POLLIN))
            drain_fd(sd->notify[0]);
        handoff_application_dispatch(sd->app);
    }
    side_teardown(sd);
    return NULL;
}

static int wait_ready(struct side *sd)
{
    int64_t end = now_ns() + SETUP_TIMEOUT_NS;
    while (now_ns() < end) {
        int r = atomic_load(&sd->ready);
        if (r != 0)
            return r;
        sleep_ns(1000000);
    }
    snprintf(sd->error, sizeof sd->error, "setup did not finish within %lld s",
             (long long)(SETUP_TIMEOUT_NS / 1000000000));
    return 0;
}

static int start_side(struct side *sd)
{
    if (pthread_create(&sd->thread, NULL, side_main, sd) != 0) {
        snprintf(sd->error, sizeof sd->error, "no thread");
        return -1;
    }
    sd->started = 1;
    return wait_ready(sd) == 1 ? 0 : -1;
}

static void pair_series_init(struct pair *pr)
{
    series_init(&pr->total, CONTINUE_N);
    series_init(&pr->seg_will, CONTINUE_N);
    series_init(&pr->seg_fetch, CONTINUE_N);
    series_init(&pr->seg_restore, CONTINUE_N);
    series_init(&pr->seg_save, CONTINUE_N);
    series_init(&pr->seg_save_to_cont, CONTINUE_N);
    series_init(&pr->seg_confirm, CONTINUE_N);
}

static void pair_series_free(struct pair *pr)
{
    free(pr->total.v), free(pr->seg_will.v), free(pr->seg_fetch.v);
    free(pr->seg_restore.v), free(pr->seg_save.v), free(pr->seg_save_to_cont.v);
    free(pr->seg_confirm.v);
}

int pair_start(struct pair *pr, int reuse_ms, const struct agents *ag, char *why, size_t why_size)
{
    memset(pr, 0, sizeof *pr);
    pr->slot = -1;
    pr->reuse_ms = reuse_ms;
    pr->agent = ag != NULL;
    pr->agent_sender = ag && ag->both;
    pr->expect_round = -1;
    pr->probe_fd = -1;
    pthread_mutex_init(&pr->lock, NULL);
    pair_series_init(pr);
    pr->sender.pair = pr->receiver.pair = pr;
    pr->sender.is_sender = 1;
    pr->sender.notify[0] = pr->sender.notify[1] = -1;
    pr->receiver.notify[0] = pr->receiver.notify[1] = -1;
    pr->ctl_notify[0] = pr->ctl_notify[1] = -1;
    if (pipe(pr->sender.notify) != 0 || pipe(pr->receiver.notify) != 0 || pipe(pr->ctl_notify) != 0) {
        snprintf(why, why_size, "pipe: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        struct side *sd = i ? &pr->receiver : &pr->sender;
        /* non-blocking notify pipes: poke never blocks, drain never hangs */
        fcntl(sd->notify[0], F_SETFL, O_NONBLOCK);
        fcntl(sd->notify[1], F_SETFL, O_NONBLOCK);
    }
    fcntl(pr->ctl_notify[0], F_SETFL, O_NONBLOCK);
    fcntl(pr->ctl_notify[1], F_SETFL, O_NONBLOCK);
    pr->probe_fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(0);
    if (pr->probe_fd < 0 || bind(pr->probe_fd, (struct sockaddr *)&a, sizeof a) != 0) {
        snprintf(why, why_size, "probe socket: %s", strerror(errno));
        return -1;
    }
    pr->probe_port = bound_port(pr->probe_fd);
    fcntl(pr->probe_fd, F_SETFL, O_NONBLOCK);
#ifdef SO_TIMESTAMPNS
    {
        int one = 1;
        pr->probe_stamps =
            setsockopt(pr->probe_fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
    }
#endif
    pr->sender.beacon_port = ag ? ag->port[0] : pick_udp_port();
    pr->receiver.beacon_port = ag ? ag->port[1] : pick_udp_port();
    while (pr->receiver.beacon_port == pr->sender.beacon_port)
        pr->receiver.beacon_port = pick_udp_port();
    if (pr->sender.beacon_port < 0 || pr->receiver.beacon_port < 0) {
        snprintf(why, why_size, "no free UDP port");
        return -1;
    }
    snprintf(pr->sender.peer_text[0], 32, "127.0.0.1:%d", pr->receiver.beacon_port);
    snprintf(pr->sender.peer_text[1], 32, "127.0.0.1:%d", pr->probe_port);
    pr->sender.peers[0] = pr->sender.peer_text[0];
    pr->sender.peers[1] = pr->sender.peer_text[1];
    pr->sender.peer_count = 2;
    snprintf(pr->receiver.peer_text[0], 32, "127.0.0.1:%d", pr->sender.beacon_port);
    pr->receiver.peers[0] = pr->receiver.peer_text[0];
    pr->receiver.peer_count = 1;
    /* Agent mode: each app finds its agent by HANDOFF_AGENT_SOCKET, read
     * when its continuity starts (one side at a time). */
    if (ag)
        setenv("HANDOFF_AGENT_SOCKET", ag->socket[1], 1);
    if (start_side(&pr->receiver) != 0) {
        snprintf(why, why_size, "receiver: %s", pr->receiver.error);
        return -1;
    }
    if (ag && ag->both)
        setenv("HANDOFF_AGENT_SOCKET", ag->socket[0], 1);
    if (start_side(&pr->sender) != 0) {
        snprintf(why, why_size, "sender: %s", pr->sender.error);
        return -1;
    }
    int64_t end = now_ns() + SETUP_TIMEOUT_NS;
    while (now_ns() < end) {
        pthread_mutex_lock(&pr->lock);
        int have = pr->have_remote;
        pthread_mutex_unlock(&pr->lock);
        if (have)
            return 0;
        sleep_ns(1000000);
    }
    snprintf(why, why_size, "the receiver was never offered the sender's activity");
    return -1;
}

void pair_halt(struct pair *pr)
{
    atomic_store(&pr->stop, 1);
    for (int i = 0; i < 2; i++) {
        struct side *sd = i ? &pr->receiver : &pr->sender;
        if (sd->notify[1] >= 0)
            poke(sd);
        if (sd->started)
            pthread_join(sd->thread, NULL);
        sd->started = 0;
    }
}

void pair_stop(struct pair *pr)
{
    pair_halt(pr);
    for (int i = 0; i < 2; i++) {
        struct side *sd = i ? &pr->receiver : &pr->sender;
        if (sd->notify[0] >= 0)
            close(sd->notify[0]), close(sd->notify[1]);
        sd->notify[0] = sd->notify[1] = -1;
    }
    if (pr->ctl_notify[0] >= 0)
        close(pr->ctl_notify[0]), close(pr->ctl_notify[1]);
    if (pr->probe_fd >= 0)
        close(pr->probe_fd);
    pair_series_free(pr);
    pthread_mutex_destroy(&pr->lock);
}

void run_phase(struct pair *pr, int phase, int64_t budget)
{
    pr->phase_end = now_ns() + budget;
    atomic_store(&pr->phase_done, 0);
    atomic_store(&pr->phase, phase);
    poke(&pr->sender);
    poke(&pr->receiver);
    int64_t hard = pr->phase_end + DRAIN_TIMEOUT_NS + 2LL * 1000000000;
    while (!atomic_load(&pr->phase_done) && now_ns() < hard)
        sleep_ns(5 * 1000000);
    if (!atomic_load(&pr->phase_done))
        pair_halt(pr); /* overran */
    atomic_store(&pr->phase, PH_IDLE);
}
