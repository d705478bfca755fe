/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The bench's table, targets, breakdowns and analysis (report.h). */
#include "report.h"

#include <handoff.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int64_t start_ns;
static double start_busy, start_cpu;
static double start_work = NAN, end_work = NAN;

void report_start(void)
{
    start_ns = now_ns();
    start_busy = machine_busy_seconds();
    start_cpu = process_cpu_seconds();
}

void report_speed_check(int at_end)
{
    *(at_end ? &end_work : &start_work) = cpu_work_ns();
}

static const char *const row_names[ROW_COUNT] = {
    "raw TCP round trip (64 B, NODELAY)",
    "raw TCP round trip, again at the end",
    "raw TCP connect + round trip + close",
    "raw pipe wake-up, thread->thread",
    "raw pipe wake-up after 2 ms idle",
    "raw UDP one-way, thread->thread",
    "C floor: fresh fetch's hops, no TLS",
    "C floor: warm fetch's hops, no TLS",
    "C floor: beacon's hops, no crypto",
    "dispatch: set needs_save -> update cb",
    "continue -> restore, fresh connection",
    "continue -> restore, warm connection",
    "  the same, receiver through an agent",
    "  the same through two agents, warm",
    "  the same, two agents via MQTT relay",
    "become_current -> activity_available",
    "raw UDP round trip (64 B)",
    "receiver start -> available",
};

/* Which raw baseline each row is compared with (besides the TCP RTT). */
static const int row_ref[ROW_COUNT] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, ROW_RAW_PIPE_IDLE, ROW_RAW_FRESH, ROW_RAW_RTT, ROW_WARM,
    ROW_WARM, ROW_AGENT_WARM, ROW_RAW_UDP, -1, ROW_RAW_UDP_RTT,
};

static const char *const ref_names[ROW_COUNT] = {
    "", "", "", "", "", "", "", "", "", "idle pipe wake", "TCP connect", "TCP RTT", "embedded warm",
    "embedded warm", "2 agents direct", "UDP 1-way", "", "UDP RTT",
};

static stats results[ROW_COUNT];
static int have_result[ROW_COUNT];
static int skipped[ROW_COUNT], failed[ROW_COUNT];
static char notes[ROW_COUNT][320];
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int report_printed;

static void print_analysis(void);

/* Extra lines (the breakdowns), printed after the table. */
static char extra[8192];
static size_t extra_len;

void extra_printf(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&report_lock);
    va_start(ap, fmt);
    if (extra_len < sizeof extra) {
        int n = vsnprintf(extra + extra_len, sizeof extra - extra_len, fmt, ap);
        if (n > 0)
            extra_len += (size_t)n < sizeof extra - extra_len ? (size_t)n : sizeof extra - extra_len - 1;
    }
    va_end(ap);
    pthread_mutex_unlock(&report_lock);
}

/* Rounds each row planned (its series' capacity) and rounds that produced a
 * sample yet did not complete (a continue whose CONFIRM never came). */
static size_t row_planned[ROW_COUNT], row_incomplete[ROW_COUNT];

void set_result(int row, const series *s)
{
    stats st = series_stats(s);
    pthread_mutex_lock(&report_lock);
    results[row] = st;
    have_result[row] = 1;
    row_planned[row] = s->cap;
    pthread_mutex_unlock(&report_lock);
}

void set_incomplete(int row, size_t n)
{
    pthread_mutex_lock(&report_lock);
    row_incomplete[row] = n;
    pthread_mutex_unlock(&report_lock);
}

int quick;

/* The completion check. */

int check_rounds(void)
{
    int status = 0;
    pthread_mutex_lock(&report_lock);
    for (int i = 0; i < ROW_COUNT; i++) {
        if (quick && i != ROW_RAW_RTT && i != ROW_WARM && i != ROW_AGENT_RECV &&
            i != ROW_AGENT_WARM && i != ROW_AGENT_RELAY)
            continue;
        if (skipped[i] && !have_result[i])
            continue;
        if (failed[i]) {
            printf("bench: FAILED: \"%s\": %s\n", row_names[i], notes[i]);
            status = 1;
            continue;
        }
        if (!have_result[i]) {
            printf("bench: FAILED: \"%s\" did not run%s%s\n", row_names[i], notes[i][0] ? ": " : "",
                   notes[i]);
            status = 1;
            continue;
        }
        size_t planned = row_planned[i], n = results[i].n;
        size_t done = n > row_incomplete[i] ? n - row_incomplete[i] : 0;
        if (done * 100 < planned * 95) {
            printf("bench: FAILED: \"%s\" completed %zu of %zu rounds (fewer than 95%%)%s%s\n",
                   row_names[i], done, planned, notes[i][0] ? ": " : "", notes[i]);
            status = 1;
        }
    }
    pthread_mutex_unlock(&report_lock);
    fflush(stdout);
    return status;
}

void note(int row, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&report_lock);
    va_start(ap, fmt);
    vsnprintf(notes[row], sizeof notes[row], fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&report_lock);
}

void skip_row(int row, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&report_lock);
    va_start(ap, fmt);
    int n = snprintf(notes[row], sizeof notes[row], "skipped: ");
    vsnprintf(notes[row] + n, sizeof notes[row] - (size_t)n, fmt, ap);
    va_end(ap);
    skipped[row] = 1;
    pthread_mutex_unlock(&report_lock);
}

void fail_row(int row, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&report_lock);
    va_start(ap, fmt);
    vsnprintf(notes[row], sizeof notes[row], fmt, ap);
    va_end(ap);
    failed[row] = 1;
    pthread_mutex_unlock(&report_lock);
}

static void fmt_us(char *buf, size_t size, double ns)
{
    if (isnan(ns))
        snprintf(buf, size, "-");
    else if (isinf(ns))
        snprintf(buf, size, "timeout");
    else
        snprintf(buf, size, "%.1f", ns / 1000.0);
}

static void fmt_ratio(char *buf, size_t size, double a, double b)
{
    if (isnan(a) || isnan(b) || b <= 0)
        snprintf(buf, size, "-");
    else if (isinf(a))
        snprintf(buf, size, "inf");
    else
        snprintf(buf, size, "%.1fx", a / b);
}

static void target_line(const char *what, double value_ns, double limit_ms, size_t n)
{
    char v[32];
    const char *verdict;
    if (n == 0 || isnan(value_ns)) {
        snprintf(v, sizeof v, "no data");
        verdict = "not met (no data)";
    } else if (isinf(value_ns)) {
        snprintf(v, sizeof v, "timeout");
        verdict = "not met";
    } else {
        snprintf(v, sizeof v, "%.3f ms", value_ns / 1e6);
        verdict = value_ns <= limit_ms * 1e6 ? "met" : "not met";
    }
    printf("  %-44s <= %.0f ms   %-12s %s\n", what, limit_ms, v, verdict);
}

static const char *verdict(double ns, double limit_ms)
{
    return isnan(ns) ? "no data" : ns <= limit_ms * 1e6 ? "met" : "NOT MET";
}

/* The targets of a row, for the table's last column ("" for none). */
static void target_cell(int row, char *buf, size_t size)
{
    const stats *s = &results[row];
    if (row == ROW_FRESH)
        snprintf(buf, size, "p50<=2ms %s, p99<=5ms %s", verdict(s->p50, 2), verdict(s->p99, 5));
    else if (row == ROW_WARM)
        snprintf(buf, size, "p99<=1ms %s", verdict(s->p99, 1));
    else if (row == ROW_AGENT_RECV && have_result[ROW_WARM])
        snprintf(buf, size, "p50-embedded<=0.3ms %s", verdict(s->p50 - results[ROW_WARM].p50, 0.3));
    else if (row == ROW_AGENT_WARM && have_result[ROW_WARM])
        snprintf(buf, size, "p50-embedded<=0.3ms %s", verdict(s->p50 - results[ROW_WARM].p50, 0.3));
    else if (row == ROW_AGENT_RELAY)
        snprintf(buf, size, "p50<=3ms %s", verdict(s->p50, 3));
    else if (row == ROW_EVENT)
        snprintf(buf, size, "p99<=1ms %s", verdict(s->p99, 1));
    else if (row == ROW_COLD)
        snprintf(buf, size, "p99<=100ms %s", verdict(s->p99, 100));
    else
        buf[0] = 0;
}

/* Prints the table, the targets and the breakdowns: once, from the main
 * thread at the end or from the watchdog. */
void print_report(const char *why)
{
    pthread_mutex_lock(&report_lock);
    if (report_printed) {
        pthread_mutex_unlock(&report_lock);
        return;
    }
    report_printed = 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    double wall = (double)(now_ns() - start_ns) / 1e9;
    double busy = machine_busy_seconds(), mine = process_cpu_seconds() - start_cpu;
    printf("\nlibhandoff %s bench: loopback 127.0.0.1, %ld CPU(s), CLOCK_MONOTONIC, times in us%s%s\n",
           handoff_version_string(), cpus, why ? " -- " : "", why ? why : "");
    if (!isnan(start_work) && !isnan(end_work))
        printf("CPU speed check: a fixed piece of work took %.0f us at the start, %.0f us at the "
               "end (x%.2f)%s\n",
               start_work / 1e3, end_work / 1e3, end_work / start_work,
               end_work / start_work > 1.25 || end_work / start_work < 0.8
                   ? " -- the machine's speed changed during the run: compare runs with care"
                   : "");
    if (busy >= 0 && start_busy >= 0 && cpus > 0) {
        double others = (busy - start_busy - mine) / (wall * (double)cpus) * 100;
        printf("run %.1f s; this process used %.0f%% of the CPUs, other processes %.0f%%%s\n", wall,
               mine / (wall * (double)cpus) * 100, others < 0 ? 0 : others,
               others > 10 ? " -- a busy machine: expect inflated figures, rerun when idle" : "");
    }
    printf("%-39s %6s %5s %9s %9s %9s %8s %8s  %-14s %s\n", "measurement", "n", "miss", "p50",
           "p99", "mean", "p50/RTT", "p50/ref", "ref", "target");
    printf("%-39s %6s %5s %9s %9s %9s %8s %8s  %-14s %s\n", "---------------------------------------",
           "------", "-----", "---------", "---------", "---------", "--------", "--------",
           "--------------", "------");
    double rtt50 = have_result[ROW_RAW_RTT] ? results[ROW_RAW_RTT].p50 : NAN;
    for (int i = 0; i < ROW_COUNT; i++) {
        char p50[24], p99[24], mean[24], r1[24], r2[24], target[64];
        if (!have_result[i]) {
            printf("%-39s %6s %5s %9s %9s %9s %8s %8s  %s\n", row_names[i], "-", "-", "-", "-", "-",
                   "-", "-", notes[i][0] ? notes[i] : "not run");
            continue;
        }
        const stats *s = &results[i];
        fmt_us(p50, sizeof p50, s->p50);
        fmt_us(p99, sizeof p99, s->p99);
        fmt_us(mean, sizeof mean, s->mean);
        fmt_ratio(r1, sizeof r1, s->p50, rtt50);
        if (row_ref[i] >= 0 && have_result[row_ref[i]])
            fmt_ratio(r2, sizeof r2, s->p50, results[row_ref[i]].p50);
        else
            snprintf(r2, sizeof r2, "-");
        target_cell(i, target, sizeof target);
        printf("%-39s %6zu %5zu %9s %9s %9s %8s %8s  %-14s %s\n", row_names[i], s->n, s->miss, p50,
               p99, mean, r1, r2, ref_names[i], target);
    }
    printf("(percentiles are nearest-rank over completed rounds plus misses, a miss counting as "
           "+infinity; mean over completed rounds)\n");

    printf("\ntargets (reported, never judged: only a row that completes fewer than 95%% of its "
           "rounds fails the run)\n");
    const stats *f = &results[ROW_FRESH], *w = &results[ROW_WARM], *e = &results[ROW_EVENT];
    target_line("continue -> restore, fresh: p50", have_result[ROW_FRESH] ? f->p50 : NAN, 2,
                have_result[ROW_FRESH] ? f->n + f->miss : 0);
    target_line("continue -> restore, fresh: p99", have_result[ROW_FRESH] ? f->p99 : NAN, 5,
                have_result[ROW_FRESH] ? f->n + f->miss : 0);
    target_line("continue -> restore, warm: p99", have_result[ROW_WARM] ? w->p99 : NAN, 1,
                have_result[ROW_WARM] ? w->n + w->miss : 0);
    target_line("become_current -> activity_available: p99", have_result[ROW_EVENT] ? e->p99 : NAN,
                1, have_result[ROW_EVENT] ? e->n + e->miss : 0);
    for (int k = 0; k < 2; k++) {
        int row = k ? ROW_AGENT_WARM : ROW_AGENT_RECV;
        const char *what = k ? "two agents' addition to warm continue: p50"
                             : "one agent's addition to warm continue: p50";
        const stats *ag = &results[row];
        char v[32];
        double d = have_result[row] && have_result[ROW_WARM] ? ag->p50 - w->p50 : NAN;
        if (isnan(d))
            snprintf(v, sizeof v, "no data");
        else if (isinf(d))
            snprintf(v, sizeof v, "timeout");
        else
            snprintf(v, sizeof v, "%+.3f ms", d / 1e6);
        printf("  %-44s <= 0.3 ms %-12s %s\n", what, v,
               isnan(d) ? "not met (no data)" : d <= 0.3e6 ? "met" : "not met");
    }
    const stats *rl = &results[ROW_AGENT_RELAY];
    target_line("continue -> restore via the relay: p50", have_result[ROW_AGENT_RELAY] ? rl->p50 : NAN,
                3, have_result[ROW_AGENT_RELAY] ? rl->n + rl->miss : 0);
    if (have_result[ROW_AGENT_RELAY] && have_result[ROW_AGENT_WARM])
        printf("  %-44s %+.3f ms (p99 %+.3f ms), reported, no target\n",
               "the relay's addition to two agents: p50", (rl->p50 - results[ROW_AGENT_WARM].p50) / 1e6,
               (rl->p99 - results[ROW_AGENT_WARM].p99) / 1e6);
    const stats *c = &results[ROW_COLD];
    target_line("receiver start -> available: p99", have_result[ROW_COLD] ? c->p99 : NAN, 100,
                have_result[ROW_COLD] ? c->n + c->miss : 0);

    int any_note = 0;
    for (int i = 0; i < ROW_COUNT; i++)
        if (have_result[i] && notes[i][0]) {
            if (!any_note)
                printf("\nnotes\n");
            any_note = 1;
            printf("  %s: %s\n", row_names[i], notes[i]);
        }
    if (extra_len)
        printf("\nwhere the time goes (medians unless stated, us)\n%s", extra);
    print_analysis();
    fflush(stdout);
    pthread_mutex_unlock(&report_lock);
}

double g_fetch_fresh = NAN, g_fetch_warm = NAN, g_confirm_fresh = NAN,
       g_confirm_warm = NAN, g_set_flag_call = NAN, g_thread_start = NAN, g_encode = NAN,
       g_decode = NAN, g_to_wire = NAN, g_rx_side = NAN, g_call = NAN;
int g_late_events = -1;

/* Where the time goes, from the figures above: printed with the report. */
static void print_analysis(void)
{
    const stats *r = results;
    double rtt = r[ROW_RAW_RTT].p50, conn = r[ROW_RAW_FRESH].p50;
    double pipe_idle = r[ROW_RAW_PIPE_IDLE].p50, wake = r[ROW_DISPATCH].p50;
    printf("\nanalysis (p50s in us unless stated; differences of medians, so approximate)\n");
    if (have_result[ROW_DISPATCH])
        printf("  dispatch wake-up: %.1f from another thread's post to the callback (the posting "
               "call itself %.1f); a bare pipe wake-up after idling is %.1f, so the library's "
               "post + epoll-fd wake + dispatch adds ~%.1f\n",
               wake / 1e3, g_set_flag_call / 1e3, pipe_idle / 1e3, (wake - pipe_idle) / 1e3);
    if (have_result[ROW_FRESH] && have_result[ROW_WARM]) {
        double setup = g_fetch_fresh - g_fetch_warm;
        printf("  fresh vs warm: the fetch takes %.1f more on a fresh connection (the CONFIRM, "
               "which also connects afresh: %.1f more); a raw TCP connect costs %.1f over a round "
               "trip, so ~%.1f is the TLS 1.3 PSK handshake (X25519 key shares) and per-connection "
               "set-up (client TLS context, the server's handshake thread)\n",
               setup / 1e3, (g_confirm_fresh - g_confirm_warm) / 1e3, (conn - rtt) / 1e3,
               (setup - (conn - rtt)) / 1e3);
    }
    if (have_result[ROW_FRESH] && have_result[ROW_FLOOR_FRESH])
        printf("  fresh fetch %.1f vs its C floor %.1f (same threads and hops, plain TCP): "
               "~%.1f is library work, chiefly the handshake above; p99 %.1f vs floor p99 %.1f\n",
               g_fetch_fresh / 1e3, r[ROW_FLOOR_FRESH].p50 / 1e3,
               (g_fetch_fresh - r[ROW_FLOOR_FRESH].p50) / 1e3, r[ROW_FRESH].p99 / 1e3,
               r[ROW_FLOOR_FRESH].p99 / 1e3);
    if (have_result[ROW_WARM] && have_result[ROW_FLOOR_WARM])
        printf("  warm fetch %.1f vs its C floor %.1f (thread start, request, server thread -> main "
               "thread -> server thread, reply, post to the receiver): ~%.1f is library work -- "
               "payload encode + decode %.1f + %.1f, the rest TLS records, framing and the Swift "
               "runtime; outside the fetch %.1f (continue's self-post, restore); p99 %.1f vs "
               "floor p99 %.1f\n",
               g_fetch_warm / 1e3, r[ROW_FLOOR_WARM].p50 / 1e3,
               (g_fetch_warm - r[ROW_FLOOR_WARM].p50) / 1e3, g_encode / 1e3, g_decode / 1e3,
               (r[ROW_WARM].p50 - g_fetch_warm) / 1e3, r[ROW_WARM].p99 / 1e3,
               r[ROW_FLOOR_WARM].p99 / 1e3);
    if (have_result[ROW_EVENT]) {
        printf("  beacon event %.1f vs its C floor %.1f (pipe -> thread -> UDP -> thread -> pipe "
               "-> thread); p99 %.1f vs floor p99 %.1f\n",
               r[ROW_EVENT].p50 / 1e3, r[ROW_FLOOR_BEACON].p50 / 1e3, r[ROW_EVENT].p99 / 1e3,
               r[ROW_FLOOR_BEACON].p99 / 1e3);
        printf("    split: sender %.1f (become_current's call %.1f; then the scheduler thread "
               "wakes, builds, seals and sends: the beacon is queued to a socket on this host "
               "%.1f after the call starts, kernel stamp) + receiver %.1f (its beacon thread wakes, "
               "opens the beacon and posts; the app thread wakes and dispatches)\n",
               g_to_wire / 1e3, g_call / 1e3, g_to_wire / 1e3, g_rx_side / 1e3);
        if (g_late_events > 0)
            printf("    burst schedule: %d events came only with a later burst beacon (the first "
                   "was lost): for those the schedule, not the wake-up, decided the delay\n",
                   g_late_events);
        else
            printf("    burst schedule: the first beacon goes out at once and every event came "
                   "from it (none later than 200 ms), so the schedule adds nothing; the sender's "
                   "side is ~%.0f%% of the p50, the receiver's side (which holds the dispatch "
                   "wake-up, ~%.1f alone) ~%.0f%%\n",
                   g_to_wire / r[ROW_EVENT].p50 * 100, wake / 1e3,
                   g_rx_side / r[ROW_EVENT].p50 * 100);
    }
}
