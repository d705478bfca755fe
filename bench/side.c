/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* One application on a thread of its own (side.h). */
#define _GNU_SOURCE
#include "side.h"

#include "net.h"
#include "timing.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void side_init(struct side *sd, void *owner, const struct side_hooks *hooks, _Atomic int *stop, int is_sender)
{
    memset(sd, 0, sizeof *sd);
    sd->owner = owner;
    sd->hooks = hooks;
    sd->stop = stop;
    sd->is_sender = is_sender;
    sd->notify[0] = sd->notify[1] = -1;
}

int side_link(struct side *sender, struct side *receiver, int sender_port, int receiver_port)
{
    sender->beacon_port = sender_port ? sender_port : pick_udp_port();
    receiver->beacon_port = receiver_port ? receiver_port : pick_udp_port();
    while (receiver->beacon_port == sender->beacon_port && receiver->beacon_port > 0)
        receiver->beacon_port = pick_udp_port();
    if (sender->beacon_port < 0 || receiver->beacon_port < 0)
        return -1;
    snprintf(sender->peer_text[0], sizeof sender->peer_text[0], "127.0.0.1:%d", receiver->beacon_port);
    snprintf(receiver->peer_text[0], sizeof receiver->peer_text[0], "127.0.0.1:%d", sender->beacon_port);
    sender->peers[0] = sender->peer_text[0];
    receiver->peers[0] = receiver->peer_text[0];
    sender->peer_count = receiver->peer_count = 1;
    return 0;
}

void poke(struct side *sd)
{
    char c = 1;
    if (write(sd->notify[1], &c, 1) < 0) {
        /* a full pipe already wakes the reader */
    }
}

int side_new_app(struct side *sd, handoff_manifest *m, const handoff_application_delegate *d,
                 const handoff_responder_callbacks *rc)
{
    sd->app = handoff_application_new(m, d, sd, NULL);
    handoff_manifest_free(m);
    if (!sd->app) {
        snprintf(sd->error, sizeof sd->error, "application_new: %s", handoff_last_error_message());
        return -1;
    }
    sd->responder = handoff_responder_new(sd->app, rc, sd, NULL);
    if (!sd->responder) {
        snprintf(sd->error, sizeof sd->error, "responder_new: %s", handoff_last_error_message());
        return -1;
    }
    return 0;
}

void side_embedded_options(const struct side *sd, handoff_continuity_options *o, const char *device_id)
{
    o->device_name = sd->is_sender ? "bench sender" : "bench receiver";
    /* else both would be the person's device from the device file, and
     * ignore each other */
    o->device_id = device_id;
    o->beacon_port = sd->beacon_port;
    o->disable_multicast = 1;
    o->peers = sd->peers;
    o->peer_count = sd->peer_count;
    o->channel_address = "127.0.0.1:0";
    o->fetch_timeout_ms = 1500;
    o->connect_timeout_ms = 1000;
}

int side_start_continuity(struct side *sd, handoff_continuity_options *o, const unsigned char *key,
                          size_t key_size, const char *what)
{
    handoff_account *account = handoff_account_from_key(key, key_size);
    o->account = account;
    int rc = handoff_application_start_continuity(sd->app, o);
    handoff_account_free(account);
    o->account = NULL;
    if (rc != HANDOFF_OK) {
        snprintf(sd->error, sizeof sd->error, "%s: %s", what, handoff_last_error_message());
        return -1;
    }
    return 0;
}

/* An application is freed on the thread it was created on. */
static void side_teardown(struct side *sd)
{
    if (sd->hooks->teardown)
        sd->hooks->teardown(sd);
    handoff_responder_free(sd->responder);
    handoff_activity_free(sd->activity);
    handoff_application_free(sd->app);
    sd->responder = NULL;
    sd->activity = NULL;
    sd->app = NULL;
}

static void *side_main(void *arg)
{
    struct side *sd = arg;
    if (sd->hooks->setup(sd) != 0) {
        side_teardown(sd);
        atomic_store(&sd->ready, -1);
        return NULL;
    }
    atomic_store(&sd->ready, 1);
    struct pollfd p[2] = {{handoff_application_get_fd(sd->app), POLLIN, 0}, {sd->notify[0], POLLIN, 0}};
    while (!atomic_load(sd->stop)) {
        int cap = sd->hooks->step ? sd->hooks->step(sd) : sd->hooks->idle_ms;
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

int side_start(struct side *sd, int64_t timeout_ns)
{
    /* non-blocking: poke never blocks, drain never hangs */
    if (pipe2(sd->notify, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(sd->error, sizeof sd->error, "pipe: %s", strerror(errno));
        sd->notify[0] = sd->notify[1] = -1;
        return -1;
    }
    if (pthread_create(&sd->thread, NULL, side_main, sd) != 0) {
        snprintf(sd->error, sizeof sd->error, "no thread");
        return -1;
    }
    sd->started = 1;
    int64_t end = now_ns() + timeout_ns;
    while (atomic_load(&sd->ready) == 0 && now_ns() < end)
        sleep_ns(1000000);
    int ready = atomic_load(&sd->ready);
    if (ready == 0)
        snprintf(sd->error, sizeof sd->error, "setup did not finish within %lld s",
                 (long long)(timeout_ns / 1000000000));
    return ready == 1 ? 0 : -1;
}

void side_halt(struct side *sd)
{
    if (sd->notify[1] >= 0)
        poke(sd);
    if (sd->started)
        pthread_join(sd->thread, NULL);
    sd->started = 0;
}

void side_close(struct side *sd)
{
    if (sd->notify[0] >= 0)
        close(sd->notify[0]), close(sd->notify[1]);
    sd->notify[0] = sd->notify[1] = -1;
}
