/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The continue rows: the receiver calls handoff_application_continue(id)
 * and the time runs to its responder's restore_user_activity_state; each
 * round the sender's state changes first (a save is asked for), and the
 * restored "round" must be the one saved for it. Once on fresh connections
 * (connection_reuse_ms = -1), then warm: embedded, the receiver through an
 * agent, both through agents, both through agents that reach each other
 * only through an MQTT broker, interleaved round by round. */
#include "pair.h"
#include "report.h"

#include <stdio.h>

#define CONFIRM_TIMEOUT_NS (1000LL * 1000000) /* user_activity_was_continued after a restore */
#define PHASE_BUDGET_CONTINUE_NS (15LL * 1000000000)

/* The warm rows (embedded, one agent, two agents, two agents through the
 * relay) run interleaved: the pairs of the ring take turns, one round
 * each, so that a machine whose load changes during the run weighs on the
 * rows alike and their difference is the agents' and the relay's (a pair
 * waits in RS_TURN for its turn). */
#define RING_MAX 4
static struct pair *ring[RING_MAX];
static int ring_size;
static _Atomic int ring_turn;

/* The next pair of the ring that has rounds left gets the turn. */
static void ring_pass(struct pair *pr)
{
    if (pr->slot < 0)
        return;
    for (int k = 1; k <= ring_size; k++) {
        struct pair *next = ring[(pr->slot + k) % ring_size];
        if (next == pr || !atomic_load(&next->phase_done)) {
            atomic_store(&ring_turn, next->slot);
            poke(&next->receiver);
            return;
        }
    }
}

static void finish_continue_phase(struct pair *pr)
{
    pr->rs = RS_DONE;
    atomic_store(&pr->phase_done, 1);
    if (pr->slot >= 0 && atomic_load(&ring_turn) == pr->slot)
        ring_pass(pr);
}

/* One step of the receiver's state machine; returns how long its poll()
 * may block (ms). */
int receiver_continue_step(struct pair *pr)
{
    struct side *rx = &pr->receiver;
    int64_t now = now_ns();
    if (pr->rs == RS_DONE)
        return 50;
    if (now > pr->phase_end && pr->rs != RS_IN_FLIGHT && pr->rs != RS_DRAIN) {
        finish_continue_phase(pr);
        return 50;
    }
    switch (pr->rs) {
    case RS_WAIT_REMOTE: {
        pthread_mutex_lock(&pr->lock);
        int have = pr->have_remote;
        pthread_mutex_unlock(&pr->lock);
        if (have) {
            pr->rs = pr->slot >= 0 ? RS_TURN : RS_READY;
            return 0;
        }
        return 5;
    }
    case RS_TURN:
        if (atomic_load(&ring_turn) == pr->slot) {
            pr->rs = RS_READY;
            return 0;
        }
        return 50; /* ring_pass pokes */
    case RS_READY: {
        if (pr->round >= pr->rounds_total) {
            finish_continue_phase(pr);
            return 50;
        }
        char id[80];
        pthread_mutex_lock(&pr->lock);
        snprintf(id, sizeof id, "%s", pr->remote_id);
        pthread_mutex_unlock(&pr->lock);
        pr->tag = pr->round + 1;
        atomic_store(&pr->round_tag, pr->tag);
        pr->saves_before = atomic_load(&pr->saves);
        pr->confirms_before = atomic_load(&pr->confirms);
        pr->restored = pr->failed = 0;
        pr->t_will = pr->t_cont = pr->t_restore = 0;
        /* The state changed: ask for a save before the activity is sent. */
        handoff_activity_set_flag(pr->sender.activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
        pr->t0 = now_ns();
        int rc = handoff_application_continue(rx->app, id);
        if (rc != HANDOFF_OK) {
            pr->continue_errors++;
            snprintf(pr->last_failure, sizeof pr->last_failure, "continue: %s",
                     handoff_last_error_message());
            if (pr->round >= pr->warmup)
                pr->total.miss++;
            pr->round++;
            pr->rs = RS_GAP;
            pr->deadline = now_ns() + 50 * 1000000; /* let a withdrawn offer come back */
            return 0;
        }
        pr->outstanding++;
        pr->deadline = pr->t0 + ROUND_TIMEOUT_NS;
        pr->rs = RS_IN_FLIGHT;
        return 0;
    }
    case RS_IN_FLIGHT: {
        int measured = pr->round >= pr->warmup;
        if (pr->restored) {
            if (pr->restored_tag != pr->tag) {
                pr->stale_count++;
                if (measured)
                    pr->total.miss++;
            } else if (measured) {
                series_add(&pr->total, pr->t_restore - pr->t0);
                series_add(&pr->seg_will, pr->t_will - pr->t0);
                series_add(&pr->seg_fetch, pr->t_cont - pr->t_will);
                series_add(&pr->seg_restore, pr->t_restore - pr->t_cont);
                if (atomic_load(&pr->saves) > pr->saves_before) {
                    int64_t ts = atomic_load(&pr->last_save_ns);
                    series_add(&pr->seg_save, ts - pr->t0);
                    series_add(&pr->seg_save_to_cont, pr->t_cont - ts);
                } else {
                    pr->save_missing++;
                }
            }
            pr->round++;
            pr->rs = RS_CONFIRM;
            pr->deadline = now + CONFIRM_TIMEOUT_NS;
            return 0;
        }
        if (pr->failed) {
            pr->fail_count++;
            if (measured)
                pr->total.miss++;
            pr->round++;
            pr->rs = RS_GAP;
            pr->deadline = now + 50 * 1000000;
            return 0;
        }
        if (now >= pr->deadline) {
            if (measured)
                pr->total.miss++;
            snprintf(pr->last_failure, sizeof pr->last_failure,
                     "round %d: no restore within %lld ms", pr->round,
                     (long long)(ROUND_TIMEOUT_NS / 1000000));
            pr->round++;
            pr->rs = RS_DRAIN;
            pr->deadline = now + DRAIN_TIMEOUT_NS;
            return 0;
        }
        return ms_until(pr->deadline, 50);
    }
    case RS_CONFIRM:
        if (atomic_load(&pr->confirms) > pr->confirms_before || now >= pr->deadline) {
            if (atomic_load(&pr->confirms) <= pr->confirms_before) {
                pr->confirm_missing++;
                if (pr->round > pr->warmup) /* round was advanced at the restore */
                    pr->confirm_missing_measured++;
            } else if (pr->round > pr->warmup) /* round was advanced at the restore */
                series_add(&pr->seg_confirm, atomic_load(&pr->last_confirm_ns) - pr->t_cont);
            pr->rs = RS_GAP;
            pr->deadline = now + ROUND_GAP_NS;
            return 0;
        }
        return ms_until(pr->deadline, 50);
    case RS_GAP:
        if (now >= pr->deadline) {
            pr->rs = pr->slot >= 0 ? RS_TURN : RS_READY;
            ring_pass(pr);
            return 0;
        }
        return ms_until(pr->deadline, 50);
    case RS_DRAIN:
        /* A timed-out continue must settle before the next round, or its
         * late restore would be taken for the next round's. */
        if (pr->outstanding <= 0) {
            pr->restored = pr->failed = 0;
            pr->rs = RS_GAP;
            pr->deadline = now + ROUND_GAP_NS;
            return 0;
        }
        if (now >= pr->deadline) {
            snprintf(pr->last_failure, sizeof pr->last_failure,
                     "a timed-out continue never settled: phase abandoned");
            finish_continue_phase(pr);
            return 50;
        }
        return ms_until(pr->deadline, 50);
    default:
        return 50;
    }
}

static void continue_begin(struct pair *pr)
{
    pr->rs = RS_WAIT_REMOTE;
    pr->round = 0;
    pr->warmup = CONTINUE_WARMUP;
    pr->rounds_total = CONTINUE_WARMUP + CONTINUE_N;
}

static void continue_end(struct pair *pr, int row);

void measure_continue(struct pair *pr, int row)
{
    continue_begin(pr);
    run_phase(pr, PH_CONTINUE, PHASE_BUDGET_CONTINUE_NS);
    continue_end(pr, row);
}

/* The ring above. */
void measure_continue_ring(struct pair **prs, const int *rows, int n)
{
    int64_t end = now_ns() + PHASE_BUDGET_CONTINUE_NS * n;
    ring_size = n;
    atomic_store(&ring_turn, 0);
    for (int i = 0; i < n; i++) {
        ring[i] = prs[i];
        prs[i]->slot = i;
        prs[i]->phase_end = end;
        continue_begin(prs[i]);
        atomic_store(&prs[i]->phase_done, 0);
    }
    for (int i = 0; i < n; i++) {
        atomic_store(&prs[i]->phase, PH_CONTINUE);
        poke(&prs[i]->sender);
        poke(&prs[i]->receiver);
    }
    int64_t hard = end + DRAIN_TIMEOUT_NS + 2LL * 1000000000;
    for (int i = 0; i < n; i++) {
        while (!atomic_load(&prs[i]->phase_done) && now_ns() < hard)
            sleep_ns(5 * 1000000);
        if (!atomic_load(&prs[i]->phase_done))
            pair_halt(prs[i]); /* overran */
    }
    for (int i = 0; i < n; i++) {
        atomic_store(&prs[i]->phase, PH_IDLE);
        continue_end(prs[i], rows[i]);
        prs[i]->slot = -1;
    }
    ring_size = 0;
}

static void continue_end(struct pair *pr, int row)
{
    /* The receiver thread wrote the series; phase_done (seq_cst) orders it. */
    set_result(row, &pr->total);
    /* A measured round whose restore came but whose CONFIRM did not is not
     * complete: the sender never heard it was continued. */
    set_incomplete(row, (size_t)pr->confirm_missing_measured);
    const char *kind = row == ROW_FRESH        ? "fresh"
                       : row == ROW_WARM       ? "warm"
                       : row == ROW_AGENT_RECV ? "1agnt"
                       : row == ROW_AGENT_WARM ? "2agnt"
                                               : "relay";
    if (pr->fail_count || pr->stale_count || pr->continue_errors || pr->confirm_missing ||
        pr->rs != RS_DONE || pr->round < pr->rounds_total)
        note(row, "rounds %d/%d, failed %d, stale %d, continue errors %d, confirm missing %d%s%s",
             pr->round, pr->rounds_total, pr->fail_count, pr->stale_count, pr->continue_errors,
             pr->confirm_missing, pr->last_failure[0] ? "; last: " : "", pr->last_failure);
    extra_printf("  continue %-5s  continue()->will_continue_user_activity %7.1f | will_continue_user_activity->continue_user_activity "
                 "(fetch) %7.1f (p99 %.1f) | continue_user_activity->restore %5.1f\n",
                 kind, median_of(&pr->seg_will) / 1e3, median_of(&pr->seg_fetch) / 1e3,
                 p99_of(&pr->seg_fetch) / 1e3, median_of(&pr->seg_restore) / 1e3);
    extra_printf("  continue %-5s  continue_user_activity->sender's user_activity_was_continued (the CONFIRM, after "
                 "the timed interval) %.1f (p99 %.1f)\n",
                 kind, median_of(&pr->seg_confirm) / 1e3, p99_of(&pr->seg_confirm) / 1e3);
    extra_printf("  continue %-5s  sender's save (update_user_activity_state) at continue()+%.1f "
                 "(p99 %.1f), %.1f before continue_user_activity; rounds without a save %d; rounds "
                 "whose restored \"round\" was not the one saved for it %d\n",
                 kind, median_of(&pr->seg_save) / 1e3, p99_of(&pr->seg_save) / 1e3,
                 median_of(&pr->seg_save_to_cont) / 1e3, pr->save_missing, pr->stale_count);
    if (row == ROW_AGENT_RECV || row == ROW_AGENT_WARM || row == ROW_AGENT_RELAY)
        return; /* the analysis's fresh/warm figures are the embedded ones */
    double *fetch = row == ROW_FRESH ? &g_fetch_fresh : &g_fetch_warm;
    double *confirm = row == ROW_FRESH ? &g_confirm_fresh : &g_confirm_warm;
    *fetch = median_of(&pr->seg_fetch);
    *confirm = median_of(&pr->seg_confirm);
}
