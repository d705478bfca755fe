/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The beacon row: the sender's handoff_application_become_current (a new
 * activity each round) -> the receiver's activity_available; a plain UDP
 * socket among the sender's peers, read with kernel receive timestamps,
 * splits it into the sender's and the receiver's share. */
#include "pair.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define PHASE_BUDGET_BEACON_NS (8LL * 1000000000)

static void probe_read(struct pair *pr, int r);

int sender_beacon_step(struct pair *pr)
{
    struct side *tx = &pr->sender;
    int64_t now = now_ns();
    switch (pr->b_state) {
    case 0: {
        if (pr->b_round >= pr->b_total || now > pr->phase_end) {
            pr->b_state = 3;
            atomic_store(&pr->phase_done, 1);
            return 50;
        }
        int r = pr->b_round;
        probe_read(pr, -1); /* drop what came before this round */
        char title[32];
        snprintf(title, sizeof title, "beacon round %d", r);
        handoff_activity *a = handoff_activity_new(BEACON_TYPE);
        if (!a) {
            pr->b_state = 3;
            atomic_store(&pr->phase_done, 1);
            return 50;
        }
        handoff_activity_set_title(a, title);
        pthread_mutex_lock(&pr->lock);
        snprintf(pr->expect_id, sizeof pr->expect_id, "%s", handoff_activity_get_id(a));
        pr->expect_round = r;
        pthread_mutex_unlock(&pr->lock);
        int64_t t0 = now_ns();
        atomic_store(&pr->b_sent[r], t0);
        int rc = handoff_application_become_current(tx->app, a);
        pr->b_call[r] = now_ns() - t0;
        handoff_activity_free(pr->b_activity);
        pr->b_activity = a;
        if (rc != HANDOFF_OK) {
            atomic_store(&pr->b_sent[r], 0); /* a miss */
            pr->b_round++;
            pr->b_state = 2;
            pr->b_deadline = now_ns() + ROUND_GAP_NS;
            return 0;
        }
        pr->b_state = 1;
        pr->b_deadline = t0 + ROUND_TIMEOUT_NS;
        return ms_until(pr->b_deadline, 50);
    }
    case 1:
        if (atomic_load(&pr->b_avail[pr->b_round]) != 0 || now >= pr->b_deadline) {
            probe_read(pr, pr->b_round);
            pr->b_round++;
            pr->b_state = 2;
            pr->b_deadline = now + ROUND_GAP_NS;
            return 0;
        }
        return ms_until(pr->b_deadline, 50);
    case 2:
        if (now >= pr->b_deadline) {
            pr->b_state = 0;
            return 0;
        }
        return ms_until(pr->b_deadline, 50);
    default:
        return 50;
    }
}

/* The probe: one more unicast peer of the sender, a plain UDP socket that
 * nobody waits on. The kernel stamps each datagram as it is queued to the
 * socket (SO_TIMESTAMPNS, CLOCK_REALTIME, mapped here to CLOCK_MONOTONIC),
 * so we learn when the beacon reached this host's sockets without a probe
 * thread competing for the CPUs. Round r keeps the first stamp at or after
 * its become_current; r < 0 only drains. */
static void probe_read(struct pair *pr, int r)
{
    char buf[2048];
    union {
        char bytes[256];
        struct cmsghdr align;
    } control;
    struct timespec rt, mt;
    clock_gettime(CLOCK_REALTIME, &rt);
    clock_gettime(CLOCK_MONOTONIC, &mt);
    int64_t offset = ((int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec) -
                     ((int64_t)mt.tv_sec * 1000000000 + mt.tv_nsec);
    int64_t sent = r >= 0 ? atomic_load(&pr->b_sent[r]) : 0;
    for (;;) {
        struct iovec iov = {buf, sizeof buf};
        struct msghdr msg;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.bytes;
        msg.msg_controllen = sizeof control.bytes;
        if (recvmsg(pr->probe_fd, &msg, MSG_DONTWAIT) < 0)
            return;
        if (r < 0 || !pr->probe_stamps || pr->b_probe[r] != 0 || sent == 0)
            continue;
#ifdef SO_TIMESTAMPNS
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPNS)
                continue;
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(c), sizeof ts);
            int64_t at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - offset;
            if (at >= sent)
                pr->b_probe[r] = at;
        }
#endif
    }
}

void measure_beacon(struct pair *pr)
{
    pr->b_round = 0;
    pr->b_state = 0;
    pr->b_total = BEACON_WARMUP + BEACON_N;
    run_phase(pr, PH_BEACON, PHASE_BUDGET_BEACON_NS);
    pthread_mutex_lock(&pr->lock);
    pr->expect_round = -1;
    pthread_mutex_unlock(&pr->lock);

    series ev, call, to_wire, rx_side;
    series_init(&ev, BEACON_N);
    series_init(&call, BEACON_N);
    series_init(&to_wire, BEACON_N);
    series_init(&rx_side, BEACON_N);
    int late = 0; /* events later than 200 ms: the burst's next beacon (250 ms) brought them */
    for (int r = BEACON_WARMUP; r < pr->b_round && r < MAX_BEACON_ROUNDS; r++) {
        int64_t s = atomic_load(&pr->b_sent[r]), a = atomic_load(&pr->b_avail[r]);
        int64_t p = pr->b_probe[r];
        if (s == 0 || a == 0) {
            ev.miss++;
            continue;
        }
        series_add(&ev, a - s);
        series_add(&call, pr->b_call[r]);
        if (a - s > 200 * 1000000LL)
            late++;
        if (p != 0 && p <= a) {
            series_add(&to_wire, p - s);
            series_add(&rx_side, a - p);
        }
    }
    set_result(ROW_EVENT, &ev);
    if (pr->b_round < pr->b_total)
        note(ROW_EVENT, "only %d of %d rounds ran", pr->b_round, pr->b_total);
    g_call = median_of(&call);
    g_to_wire = median_of(&to_wire);
    g_rx_side = median_of(&rx_side);
    g_late_events = late;
    if (to_wire.n)
        extra_printf("  beacon event    become_current() call itself %.1f | become_current -> beacon "
                     "queued to a socket on this host (kernel stamp) %.1f (p99 %.1f) | that -> "
                     "activity_available %.1f (p99 %.1f) | events later than 200 ms: %d\n",
                     median_of(&call) / 1e3, g_to_wire / 1e3, p99_of(&to_wire) / 1e3,
                     g_rx_side / 1e3, p99_of(&rx_side) / 1e3, late);
    else
        extra_printf("  beacon event    become_current() call itself %.1f | no kernel receive "
                     "stamps, no split | events later than 200 ms: %d\n",
                     median_of(&call) / 1e3, late);
    free(ev.v), free(call.v), free(to_wire.v), free(rx_side.v);
}

