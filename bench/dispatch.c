/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The dispatch row, on a pair: the library's post + pollable-fd wake-up +
 * dispatch. */
#include "net.h"
#include "pair.h"
#include "report.h"

#include <poll.h>
#include <stdlib.h>

#define DISPATCH_WARMUP 20
#define DISPATCH_N 300

/* The library's dispatch wake-up: a thread that is not the app's main
 * thread sets needs_save; the app's thread wakes on its fd and runs the
 * save. From set_flag to the update callback. */
void measure_dispatch(struct pair *pr)
{
    series s, call;
    series_init(&s, DISPATCH_N);
    series_init(&call, DISPATCH_N);
    atomic_store(&pr->ctl_wants, 1);
    for (int i = 0; i < DISPATCH_WARMUP + DISPATCH_N; i++) {
        long before = atomic_load(&pr->saves);
        sleep_ns(ROUND_GAP_NS); /* the sender's loop idles in poll(), as between rounds */
        drain_fd(pr->ctl_notify[0]);
        int64_t t0 = now_ns();
        handoff_activity_set_flag(pr->sender.activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
        if (i >= DISPATCH_WARMUP)
            series_add(&call, now_ns() - t0);
        int64_t end = t0 + 1000000000;
        while (atomic_load(&pr->saves) == before && now_ns() < end) {
            struct pollfd p = {pr->ctl_notify[0], POLLIN, 0};
            poll(&p, 1, ms_until(end, 1000));
            drain_fd(pr->ctl_notify[0]);
        }
        if (atomic_load(&pr->saves) == before) {
            if (i >= DISPATCH_WARMUP)
                s.miss++;
            continue;
        }
        if (i >= DISPATCH_WARMUP)
            series_add(&s, atomic_load(&pr->last_save_ns) - t0);
    }
    atomic_store(&pr->ctl_wants, 0);
    g_set_flag_call = median_of(&call);
    set_result(ROW_DISPATCH, &s);
    free(s.v), free(call.v);
}
