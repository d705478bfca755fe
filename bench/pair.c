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

/* ---- callbacks ---- */

/* Sender's responder: the save writes the current round tag. */
static void on_update(handoff_responder *r, handoff_activity *activity, void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->owner;
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
    struct pair *pr = sd->owner;
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
    struct pair *pr = sd->owner;
    atomic_store(&pr->last_confirm_ns, now_ns());
    atomic_fetch_add(&pr->confirms, 1);
    poke(&pr->receiver);
}

static void on_available(handoff_application *app, const handoff_remote_activity *remote,
                         void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->owner;
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
    ((struct pair *)sd->owner)->t_will = now_ns();
    return 0;
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->owner;
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
    struct pair *pr = sd->owner;
    (void)app;
    (void)type;
    pr->outstanding--;
    pr->failed = 1;
    snprintf(pr->last_failure, sizeof pr->last_failure, "error %d: %s", error,
             message ? message : "");
}

/* ---- the side threads (side.h) ---- */

static int side_setup(struct side *sd)
{
    struct pair *pr = sd->owner;
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
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    rc.update_user_activity_state = on_update;
    rc.restore_user_activity_state = on_restore;
    if (side_new_app(sd, m, &d, &rc) != 0)
        return -1;
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
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    if (pr->agent && (!sd->is_sender || pr->agent_sender)) {
        /* The device-level settings are the agent's (its command line):
         * the app gives its account and how long its main thread has to
         * hand over an activity. The socket: HANDOFF_AGENT_SOCKET, set by
         * pair_start before this side starts. */
        o.mode = HANDOFF_CONTINUITY_MODE_AGENT;
        o.fetch_timeout_ms = 1500;
        return side_start_continuity(sd, &o, bench_key, sizeof bench_key, "start_continuity (agent)");
    }
    side_embedded_options(sd, &o, sd->is_sender ? "0000000000000000000000000000be01" : "0000000000000000000000000000be02");
    o.connection_reuse_ms = pr->reuse_ms;
    return side_start_continuity(sd, &o, bench_key, sizeof bench_key, "start_continuity");
}

/* The sender drives the beacon rounds, the receiver the continue rounds. */
static int side_step(struct side *sd)
{
    struct pair *pr = sd->owner;
    int phase = atomic_load(&pr->phase);
    if (sd->is_sender && phase == PH_BEACON)
        return sender_beacon_step(pr);
    if (!sd->is_sender && phase == PH_CONTINUE)
        return receiver_continue_step(pr);
    return 50;
}

static void side_free_beacon(struct side *sd)
{
    struct pair *pr = sd->owner;
    if (sd->is_sender) {
        handoff_activity_free(pr->b_activity);
        pr->b_activity = NULL;
    }
}

static const struct side_hooks hooks = {side_setup, side_step, 50, side_free_beacon};

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
    side_init(&pr->sender, pr, &hooks, &pr->stop, 1);
    side_init(&pr->receiver, pr, &hooks, &pr->stop, 0);
    pr->ctl_notify[0] = pr->ctl_notify[1] = -1;
    if (pipe(pr->ctl_notify) != 0) {
        snprintf(why, why_size, "pipe: %s", strerror(errno));
        return -1;
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
    if (side_link(&pr->sender, &pr->receiver, ag ? ag->port[0] : 0, ag ? ag->port[1] : 0) != 0) {
        snprintf(why, why_size, "no free UDP port");
        return -1;
    }
    /* the sender's beacons also reach the probe (beacon.c) */
    snprintf(pr->sender.peer_text[1], sizeof pr->sender.peer_text[1], "127.0.0.1:%d", pr->probe_port);
    pr->sender.peers[1] = pr->sender.peer_text[1];
    pr->sender.peer_count = 2;
    /* Agent mode: each app finds its agent by HANDOFF_AGENT_SOCKET, read
     * when its continuity starts (one side at a time). */
    if (ag)
        setenv("HANDOFF_AGENT_SOCKET", ag->socket[1], 1);
    if (side_start(&pr->receiver, SETUP_TIMEOUT_NS) != 0) {
        snprintf(why, why_size, "receiver: %s", pr->receiver.error);
        return -1;
    }
    if (ag && ag->both)
        setenv("HANDOFF_AGENT_SOCKET", ag->socket[0], 1);
    if (side_start(&pr->sender, SETUP_TIMEOUT_NS) != 0) {
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
    side_halt(&pr->sender);
    side_halt(&pr->receiver);
}

void pair_stop(struct pair *pr)
{
    pair_halt(pr);
    side_close(&pr->sender);
    side_close(&pr->receiver);
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
