/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The handoff pair: two applications, each created on and driven by its own
 * thread (side.h: poll() on handoff_application_get_fd, then dispatch), joined by
 * continuity with unicast peers on 127.0.0.1, embedded or through `handoff
 * agent` processes. The main thread runs one phase at a time on them: the
 * receiver's thread drives the continue rounds (continue.c), the sender's
 * the beacon rounds (beacon.c). */
#ifndef BENCH_PAIR_H
#define BENCH_PAIR_H

#include "agents.h"
#include "bench.h"
#include "side.h"
#include "timing.h"

#include <pthread.h>
#include <stdatomic.h>

#define CONTINUE_WARMUP 20
#define CONTINUE_N 1000
#define BEACON_WARMUP 10
#define BEACON_N 300
#define MAX_BEACON_ROUNDS (BEACON_WARMUP + BEACON_N)

#define ROUND_TIMEOUT_NS (2000LL * 1000000) /* a continue or beacon round */
#define DRAIN_TIMEOUT_NS (6000LL * 1000000) /* a timed-out continue to settle */

enum { PH_IDLE, PH_CONTINUE, PH_BEACON };

enum { RS_WAIT_REMOTE, RS_TURN, RS_READY, RS_IN_FLIGHT, RS_CONFIRM, RS_GAP, RS_DRAIN, RS_DONE };

struct pair {
    int reuse_ms;
    int slot; /* its place in the ring of interleaved pairs, or -1 */
    int agent;        /* the receiver app in agent mode, through its agent (agents_start) */
    int agent_sender; /* the sender app too, through an agent of its own */
    struct side sender, receiver;
    _Atomic int phase;
    _Atomic int phase_done;
    _Atomic int stop;
    int64_t phase_end; /* budget */

    /* Sender state, written by the sender's callbacks. */
    _Atomic long round_tag; /* what the next save writes as "round" */
    _Atomic long saves;
    _Atomic int64_t last_save_ns;
    _Atomic long confirms;
    _Atomic int64_t last_confirm_ns;
    int ctl_notify[2];         /* the sender's save wakes the main thread */
    _Atomic int ctl_wants;

    /* What the receiver is offered (activity_available), under `lock`. */
    pthread_mutex_t lock;
    char remote_id[80];
    int have_remote;

    /* Continue phase, receiver thread only. */
    int rs;
    int round, rounds_total, warmup;
    int outstanding; /* continues without continue_user_activity/did_fail yet */
    int64_t t0, deadline;
    int64_t t_will, t_cont, t_restore;
    long tag, saves_before, confirms_before;
    int restored, failed;
    long restored_tag;
    series total;
    series seg_will, seg_fetch, seg_restore, seg_save, seg_save_to_cont; /* breakdown */
    series seg_confirm; /* continue_user_activity -> the sender's was-continued */
    int save_missing;
    int confirm_missing, fail_count, stale_count, continue_errors;
    int confirm_missing_measured; /* of measured rounds that restored */
    char last_failure[200];

    /* Beacon phase: sender thread drives, receiver callback stamps. */
    int b_round, b_total;
    int b_state;                        /* 0 start round, 1 wait, 2 gap, 3 done */
    int64_t b_deadline;
    handoff_activity *b_activity;
    char expect_id[80];
    int expect_round; /* under lock */
    _Atomic int64_t b_sent[MAX_BEACON_ROUNDS];  /* just before become_current */
    _Atomic int64_t b_avail[MAX_BEACON_ROUNDS]; /* activity_available */
    int64_t b_probe[MAX_BEACON_ROUNDS];         /* kernel stamp of the beacon at the probe */
    int64_t b_call[MAX_BEACON_ROUNDS];          /* become_current's own duration */
    int probe_fd, probe_port, probe_stamps; /* probe_stamps: kernel timestamps are on */
};

/* Creates both applications on their own threads (through the agents of
 * `ag` when given); 0 when the receiver has been offered the sender's
 * activity, else -1 with `why`. */
int pair_start(struct pair *pr, int reuse_ms, const struct agents *ag, char *why, size_t why_size);
void pair_stop(struct pair *pr);
/* Runs `phase` and waits (bounded) until it says it is done. */
void run_phase(struct pair *pr, int phase, int64_t budget);
/* Stops a pair's threads that overran, before what they wrote is read. */
void pair_halt(struct pair *pr);

/* One step of a side's phase; each returns how long its poll() may block (ms). */
int receiver_continue_step(struct pair *pr); /* continue.c */
int sender_beacon_step(struct pair *pr);     /* beacon.c */

void measure_dispatch(struct pair *pr);
void measure_continue(struct pair *pr, int row);
/* The continue rounds of several pairs, interleaved: one round of each in turn. */
void measure_continue_ring(struct pair **prs, const int *rows, int n);
void measure_beacon(struct pair *pr);

#endif
