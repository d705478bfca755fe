/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The cold-start row, receiver start -> activity_available: a sender offers
 * an activity (keep-alive every 4 s); each round creates a new receiver
 * application, starts continuity (the sender as its unicast peer) and waits
 * for the sender's activity: the answer to the receiver's solicitation
 * (PROTOCOL §5 "Schedule"). */
#include "bench.h"
#include "net.h"
#include "report.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COLD_N 20
/* Answers to solicitations are limited to 4 a second (burst 8): rounds
 * are spaced so each is answered. */
#define COLD_GAP_NS (260LL * 1000000)
#define COLD_TIMEOUT_NS (2000LL * 1000000)

struct cold_sender {
    handoff_application *app;
    handoff_activity *activity;
    int notify[2];
    _Atomic int stop;
    _Atomic int ready; /* 1 offering, -1 failed */
    int beacon_port, receiver_port;
    char why[200];
};

static _Atomic int64_t cold_available_ns;

static void cold_on_available(handoff_application *app, const handoff_remote_activity *remote,
                              void *user_data)
{
    const char *type = handoff_remote_activity_get_type(remote);
    (void)app;
    (void)user_data;
    if (type && strcmp(type, ACTIVITY_TYPE) == 0) {
        int64_t zero = 0;
        atomic_compare_exchange_strong(&cold_available_ns, &zero, now_ns());
    }
}

static handoff_application *cold_app(int beacon_port, int peer_port, const char *name, const char *device_id,
                                     handoff_application_delegate *d, char *why, size_t why_size)
{
    handoff_manifest *m = bench_manifest(why, why_size);
    if (!m)
        return NULL;
    handoff_application *app = handoff_application_new(m, d, NULL, NULL);
    handoff_manifest_free(m);
    if (!app) {
        snprintf(why, why_size, "application_new: %s", handoff_last_error_message());
        return NULL;
    }
    char peer[32];
    const char *peers[1] = {peer};
    snprintf(peer, sizeof peer, "127.0.0.1:%d", peer_port);
    handoff_account *account = handoff_account_from_key(bench_key, sizeof bench_key);
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    o.account = account;
    /* Two devices in one process: each its own id (without one both would
     * be the person's device, and each drop the other's beacons as its own). */
    o.device_id = device_id;
    o.device_name = name;
    o.beacon_port = beacon_port;
    o.disable_multicast = 1;
    o.peers = peers;
    o.peer_count = 1;
    o.channel_address = "127.0.0.1:0";
    o.connect_timeout_ms = 1000;
    int rc = handoff_application_start_continuity(app, &o);
    handoff_account_free(account);
    if (rc != HANDOFF_OK) {
        snprintf(why, why_size, "start_continuity: %s", handoff_last_error_message());
        handoff_application_free(app);
        return NULL;
    }
    return app;
}

/* The sender: its own thread, offering one activity and dispatching. */
static void *cold_sender_main(void *arg)
{
    struct cold_sender *cs = arg;
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    cs->app = cold_app(cs->beacon_port, cs->receiver_port, "bench cold sender", "0000000000000000000000000000c001", &d, cs->why,
                       sizeof cs->why);
    cs->activity = cs->app ? handoff_activity_new(ACTIVITY_TYPE) : NULL;
    if (!cs->activity || handoff_application_become_current(cs->app, cs->activity) != HANDOFF_OK) {
        if (cs->app && !cs->why[0])
            snprintf(cs->why, sizeof cs->why, "become_current: %s", handoff_last_error_message());
        atomic_store(&cs->ready, -1);
        handoff_activity_free(cs->activity);
        handoff_application_free(cs->app);
        return NULL;
    }
    atomic_store(&cs->ready, 1);
    struct pollfd p[2] = {{handoff_application_get_fd(cs->app), POLLIN, 0},
                          {cs->notify[0], POLLIN, 0}};
    while (!atomic_load(&cs->stop)) {
        int wait = handoff_application_next_timeout(cs->app);
        if (wait < 0 || wait > 50)
            wait = 50;
        if (poll(p, 2, wait) > 0 && (p[1].revents & POLLIN))
            drain_fd(cs->notify[0]);
        handoff_application_dispatch(cs->app);
    }
    handoff_activity_free(cs->activity);
    handoff_application_free(cs->app);
    return NULL;
}

/* Receiver start -> activity_available, a new receiver each round. */
void measure_cold_start(void)
{
    static struct cold_sender cs;
    memset(&cs, 0, sizeof cs);
    cs.notify[0] = cs.notify[1] = -1;
    pthread_t t;
    cs.beacon_port = pick_udp_port();
    cs.receiver_port = pick_udp_port();
    if (cs.beacon_port < 0 || cs.receiver_port < 0 || cs.beacon_port == cs.receiver_port ||
        pipe(cs.notify) != 0 || pthread_create(&t, NULL, cold_sender_main, &cs) != 0) {
        note(ROW_COLD, "could not set up");
        return;
    }
    fcntl(cs.notify[0], F_SETFL, O_NONBLOCK);
    fcntl(cs.notify[1], F_SETFL, O_NONBLOCK);
    int64_t setup_end = now_ns() + SETUP_TIMEOUT_NS;
    while (atomic_load(&cs.ready) == 0 && now_ns() < setup_end)
        sleep_ns(1000000);
    series s;
    series_init(&s, COLD_N);
    int failed_starts = 0;
    char why[200] = "";
    if (atomic_load(&cs.ready) != 1) {
        note(ROW_COLD, "sender: %s", cs.why[0] ? cs.why : "setup did not finish");
        goto out;
    }
    /* Let the sender's first burst (0 .. 1.75 s) pass: after it, the next
     * beacon is a keep-alive 4 s later, so what a receiver hears first is
     * the answer to its solicitation. */
    sleep_ns(2000LL * 1000000);
    for (int r = 0; r < COLD_N; r++) {
        handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
        d.activity_available = cold_on_available;
        atomic_store(&cold_available_ns, 0);
        /* A port of its own each round: answers are limited per source
         * address and port (1 a second), as a new process would have. */
        int port = pick_udp_port();
        int64_t t0 = now_ns();
        handoff_application *app =
            cold_app(port, cs.beacon_port, "bench cold receiver", "0000000000000000000000000000c002", &d, why, sizeof why);
        if (!app) {
            failed_starts++;
            s.miss++;
            sleep_ns(COLD_GAP_NS);
            continue;
        }
        int64_t deadline = t0 + COLD_TIMEOUT_NS;
        struct pollfd p = {handoff_application_get_fd(app), POLLIN, 0};
        while (atomic_load(&cold_available_ns) == 0 && now_ns() < deadline) {
            (void)poll(&p, 1, ms_until(deadline, 20));
            handoff_application_dispatch(app);
        }
        int64_t a = atomic_load(&cold_available_ns);
        if (a)
            series_add(&s, a - t0);
        else
            s.miss++;
        handoff_application_free(app);
        sleep_ns(COLD_GAP_NS);
    }
    set_result(ROW_COLD, &s);
    if (failed_starts)
        note(ROW_COLD, "%d receivers did not start: %s", failed_starts, why);
out:
    atomic_store(&cs.stop, 1);
    {
        char c = 1;
        if (write(cs.notify[1], &c, 1) < 0) {
            /* the sender polls with a 50 ms cap anyway */
        }
    }
    pthread_join(t, NULL);
    close(cs.notify[0]);
    close(cs.notify[1]);
    free(s.v);
}
