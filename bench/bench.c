/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* bench: libhandoff latency over loopback (127.0.0.1), against raw baselines
 * taken in the same run.
 *
 *   make bench        (builds the library, then builds and runs this)
 *
 * What is measured, all in one process, all on 127.0.0.1, all with
 * CLOCK_MONOTONIC (one clock for every thread):
 *
 *   raw baselines   TCP ping-pong round trip (64 B, TCP_NODELAY; again at
 *                   the end, to see the machine did not change), TCP
 *                   connect + one round trip + close, pipe wake-up and UDP
 *                   datagram one-way from one thread to a thread blocked in
 *                   poll().
 *   C floors        the thread hand-offs of each library path re-enacted in
 *                   plain C (threads, pipes, TCP/UDP; no TLS, no crypto, no
 *                   coding): what the structure alone costs on this machine.
 *   dispatch        handoff_activity_set_flag(NEEDS_SAVE) on another thread
 *                   -> the app's update_user_activity_state callback: the
 *                   library's post + pollable-fd wake-up + dispatch.
 *   continue        two applications, each created on and driven by its own
 *                   thread (poll() on handoff_application_get_fd, then
 *                   dispatch), joined by continuity with unicast peers. The
 *                   receiver calls handoff_application_continue(id) and we
 *                   time up to its responder's restore_user_activity_state.
 *                   Once with connection_reuse_ms = -1 (every handoff
 *                   connects and handshakes afresh), once with the default
 *                   (a warm connection is reused).
 *   through agents  the warm continue again with the receiving app, then
 *                   both apps, in HANDOFF_CONTINUITY_MODE_AGENT: each device
 *                   a `handoff agent` process started here (the tool's path
 *                   is the first argument, else $HANDOFF_TOOL) with its own
 *                   XDG_CONFIG_HOME (this bench's account), XDG_RUNTIME_DIR
 *                   and socket, unicast beacons on 127.0.0.1; printed next
 *                   to the embedded row with the difference at p50. The
 *                   three warm rows run interleaved, one round of each in
 *                   turn, so that a machine whose load changes weighs on
 *                   them alike. BENCH_QUICK=1 in the environment runs only
 *                   these three rows (and a TCP round trip).
 *   beacon          sender's handoff_application_become_current (a new
 *                   activity each round) -> receiver's activity_available;
 *                   a plain UDP socket among the sender's peers, read with
 *                   kernel receive timestamps, splits it into the sender's
 *                   and the receiver's share.
 *   cold start      receiver start -> activity_available: a sender offers an
 *                   activity (keep-alive every 4 s); each round creates a
 *                   new receiver application, starts continuity (the
 *                   sender as its unicast peer) and waits for the
 *                   sender's activity: the answer to the receiver's
 *                   solicitation (PROTOCOL §5 "Schedule"). Next to it, a
 *                   raw UDP round trip (64 B, thread <-> thread).
 *
 * Then it prints where the time goes: the pieces it can time from C, and
 * differences against the raw baselines and the C floors.
 *
 * Every wait is bounded: a round that does not finish in time is recorded as
 * a miss (counted as +infinity in the percentiles) and the run moves on;
 * each phase has a time budget and a watchdog ends the whole run. It never
 * judges timings, but it exits 1, naming the row, when any row completed
 * fewer than 95% of its rounds (or did not run): a broken path must not
 * pass quietly as "no data". Otherwise it exits 0.
 */
#include <handoff.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ sizes */

#define RAW_RTT_WARMUP 200
#define RAW_RTT_N 5000
#define RAW_FRESH_WARMUP 20
#define RAW_FRESH_N 500
#define RAW_WAKE_WARMUP 100
#define RAW_WAKE_N 2000
#define RAW_IDLE_N 300
#define FLOOR_N 500
#define DISPATCH_WARMUP 20
#define DISPATCH_N 300
#define CONTINUE_WARMUP 20
#define CONTINUE_N 1000
#define BEACON_WARMUP 10
#define BEACON_N 300
#define UDP_RTT_WARMUP 100
#define UDP_RTT_N 2000
#define COLD_N 20
/* Answers to solicitations are limited to 4 a second (burst 8): rounds
 * are spaced so each is answered. */
#define COLD_GAP_NS (260LL * 1000000)
#define COLD_TIMEOUT_NS (2000LL * 1000000)

#define ROUND_TIMEOUT_NS (2000LL * 1000000)    /* a continue or beacon round */
#define DRAIN_TIMEOUT_NS (6000LL * 1000000)    /* a timed-out continue to settle */
#define CONFIRM_TIMEOUT_NS (1000LL * 1000000)  /* user_activity_was_continued after a restore */
#ifndef ROUND_GAP_NS
#define ROUND_GAP_NS (2LL * 1000000) /* quiet time between rounds */
#endif
#define PHASE_BUDGET_CONTINUE_NS (15LL * 1000000000)
#define PHASE_BUDGET_BEACON_NS (8LL * 1000000000)
#define SETUP_TIMEOUT_NS (5LL * 1000000000)
#define WATCHDOG_NS (130LL * 1000000000) /* 58 s + the agent phases (2 x ~30 s) + cold start (~8 s) */

#define MAX_BEACON_ROUNDS (BEACON_WARMUP + BEACON_N)

#define ACTIVITY_TYPE "com.example.bench.view"
#define BEACON_TYPE "com.example.bench.beacon"
#define MSG 64

/* A fixed key: both applications of this process share the "account". */
static const unsigned char bench_key[32] = {
    0x62, 0x65, 0x6e, 0x63, 0x68, 0x20, 0x6f, 0x6e, 0x6c, 0x79, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x30,
    0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x00,
};

/* ------------------------------------------------------------------ time */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Milliseconds (rounded up, clamped to [0, cap]) until `deadline`. */
static int ms_until(int64_t deadline, int cap)
{
    int64_t left = deadline - now_ns();
    if (left <= 0)
        return 0;
    int64_t ms = (left + 999999) / 1000000;
    return ms > cap ? cap : (int)ms;
}

static int64_t start_ns;

/* CPU time the whole machine spent busy, in seconds (/proc/stat), to tell
 * how much of it went to other processes during the run; -1 if unknown. */
static double machine_busy_seconds(void)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 5)
        return -1;
    unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]; /* not idle, iowait */
    return (double)busy / (double)sysconf(_SC_CLK_TCK);
}

static double process_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double start_busy, start_cpu;

/* A fixed piece of CPU work, timed: the machine's speed now (median of 31
 * runs, ns). Compared at the start and the end to catch a machine that
 * slowed down mid-run (host contention, frequency), which /proc/stat in a
 * guest may not show. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile uint64_t calibration_sink;

static double cpu_work_ns(void)
{
    double t[31];
    for (int k = 0; k < 31; k++) {
        uint64_t x = 88172645463325252ULL;
        int64_t t0 = now_ns();
        for (int i = 0; i < 200000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        t[k] = (double)(now_ns() - t0);
        calibration_sink = x;
    }
    qsort(t, 31, sizeof t[0], cmp_double);
    return t[15];
}

static double start_work = NAN, end_work = NAN;

/* ------------------------------------------------------------------ series */

typedef struct series {
    double *v; /* samples, ns */
    size_t n, cap;
    size_t miss; /* rounds that timed out or failed: +inf */
} series;

static void series_init(series *s, size_t cap)
{
    s->v = calloc(cap ? cap : 1, sizeof *s->v);
    s->n = 0;
    s->cap = cap;
    s->miss = 0;
    if (!s->v) {
        fprintf(stderr, "bench: out of memory\n");
        exit(0);
    }
}

static void series_add(series *s, int64_t ns)
{
    if (s->n < s->cap)
        s->v[s->n++] = (double)ns;
}

typedef struct stats {
    size_t n, miss;
    double p50, p99, mean, min, max; /* ns; INFINITY when a miss decides it */
} stats;

/* Nearest-rank percentiles over samples plus misses, misses counted as
 * +infinity; the mean is over the samples that completed. */
static stats series_stats(const series *s)
{
    stats r = {s->n, s->miss, NAN, NAN, NAN, NAN, NAN};
    size_t total = s->n + s->miss;
    if (total == 0)
        return r;
    double *c = malloc((s->n ? s->n : 1) * sizeof *c);
    if (!c)
        return r;
    memcpy(c, s->v, s->n * sizeof *c);
    qsort(c, s->n, sizeof *c, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += c[i];
    const double ps[2] = {0.50, 0.99};
    double out[2];
    for (int k = 0; k < 2; k++) {
        size_t rank = (size_t)ceil(ps[k] * (double)total); /* 1-based */
        if (rank < 1)
            rank = 1;
        out[k] = rank <= s->n ? c[rank - 1] : INFINITY;
    }
    r.p50 = out[0];
    r.p99 = out[1];
    if (s->n) {
        r.mean = sum / (double)s->n;
        r.min = c[0];
        r.max = c[s->n - 1];
    }
    free(c);
    return r;
}

/* ------------------------------------------------------------------ report */

enum {
    ROW_RAW_RTT,
    ROW_RAW_RTT_END,
    ROW_RAW_FRESH,
    ROW_RAW_PIPE,
    ROW_RAW_PIPE_IDLE,
    ROW_RAW_UDP,
    ROW_FLOOR_FRESH,
    ROW_FLOOR_WARM,
    ROW_FLOOR_BEACON,
    ROW_DISPATCH,
    ROW_FRESH,
    ROW_WARM,
    ROW_AGENT_RECV,
    ROW_AGENT_WARM,
    ROW_EVENT,
    ROW_RAW_UDP_RTT,
    ROW_COLD,
    ROW_COUNT
};

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
    "become_current -> activity_available",
    "raw UDP round trip (64 B)",
    "receiver start -> available",
};

/* Which raw baseline each row is compared with (besides the TCP RTT). */
static const int row_ref[ROW_COUNT] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, ROW_RAW_PIPE_IDLE, ROW_RAW_FRESH, ROW_RAW_RTT, ROW_WARM,
    ROW_WARM, ROW_RAW_UDP, -1, ROW_RAW_UDP_RTT,
};

static const char *const ref_names[ROW_COUNT] = {
    "", "", "", "", "", "", "", "", "", "idle pipe wake", "TCP connect", "TCP RTT", "embedded warm",
    "embedded warm", "UDP 1-way", "", "UDP RTT",
};

static stats results[ROW_COUNT];
static int have_result[ROW_COUNT];
static char notes[ROW_COUNT][160];
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int report_printed;

/* Extra lines (the breakdowns), printed after the table. */
static void print_analysis(void);
static char extra[8192];
static size_t extra_len;

static void extra_printf(const char *fmt, ...)
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

static void set_result(int row, const series *s)
{
    stats st = series_stats(s);
    pthread_mutex_lock(&report_lock);
    results[row] = st;
    have_result[row] = 1;
    row_planned[row] = s->cap;
    pthread_mutex_unlock(&report_lock);
}

/* The completion check: prints each row that completed fewer than 95% of
 * its planned rounds, or did not run; returns the exit status (0 or 1). */
/* BENCH_QUICK set: only the raw TCP round trip and the three warm rows. */
static int quick;

static int check_rounds(void)
{
    int status = 0;
    pthread_mutex_lock(&report_lock);
    for (int i = 0; i < ROW_COUNT; i++) {
        if (quick && i != ROW_RAW_RTT && i != ROW_WARM && i != ROW_AGENT_RECV && i != ROW_AGENT_WARM)
            continue;
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

static void note(int row, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&report_lock);
    va_start(ap, fmt);
    vsnprintf(notes[row], sizeof notes[row], fmt, ap);
    va_end(ap);
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
    else if (row == ROW_EVENT)
        snprintf(buf, size, "p99<=1ms %s", verdict(s->p99, 1));
    else if (row == ROW_COLD)
        snprintf(buf, size, "p99<=100ms %s", verdict(s->p99, 100));
    else
        buf[0] = 0;
}

/* Prints the table, the targets and the breakdowns: once, from the main
 * thread at the end or from the watchdog. */
static void print_report(const char *why)
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

/* Medians kept for the analysis (ns; NAN when not measured). */
static double g_fetch_fresh = NAN, g_fetch_warm = NAN, g_confirm_fresh = NAN,
              g_confirm_warm = NAN, g_set_flag_call = NAN, g_thread_start = NAN, g_encode = NAN,
              g_decode = NAN, g_to_wire = NAN, g_rx_side = NAN, g_call = NAN;
static int g_late_events = -1;

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

static _Atomic int all_done;
/* The agents the bench started (agents_start): the watchdog kills them too,
 * an overrun must not leave them behind. */
static _Atomic pid_t agent_pids[4]; /* two sets of agents at once */

static void *watchdog_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&all_done)) {
        if (now_ns() - start_ns > WATCHDOG_NS) {
            print_report("WATCHDOG: the run overran its time limit; rows not shown did not finish");
            check_rounds(); /* names what did not finish */
            for (int i = 0; i < 4; i++)
                if (atomic_load(&agent_pids[i]) > 0)
                    kill(atomic_load(&agent_pids[i]), SIGKILL);
            _exit(1);
        }
        sleep_ns(100 * 1000000);
    }
    return NULL;
}

/* ------------------------------------------------------------------ sockets */

static int write_full(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void set_rcvtimeo(int fd, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static struct sockaddr_in loopback(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static int bound_port(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    return ntohs(a.sin_port);
}

/* A TCP listener on 127.0.0.1, ephemeral port; -1 on failure. */
static int tcp_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = loopback(0);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 64) != 0) {
        close(fd);
        return -1;
    }
    *port = bound_port(fd);
    return fd;
}

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    set_nodelay(fd);
    set_rcvtimeo(fd, 1000);
    struct sockaddr_in a = loopback(port);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* accept() that gives up after `ms`. */
static int accept_within(int listener, int ms)
{
    struct pollfd p = {listener, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return -1;
    int fd = accept(listener, NULL, NULL);
    if (fd >= 0) {
        set_nodelay(fd);
        set_rcvtimeo(fd, 1000);
    }
    return fd;
}

/* A UDP port free on 0.0.0.0 right now (the library binds 0.0.0.0:port),
 * chosen at random so concurrent runs and demos on this host do not meet. */
static int pick_udp_port(void)
{
    for (int attempt = 0; attempt < 200; attempt++) {
        int port = 20000 + (int)(((unsigned)rand() ^ (unsigned)getpid()) % 30000u);
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in a = loopback(port);
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        int ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        close(fd);
        if (ok)
            return port;
    }
    return -1;
}

/* ------------------------------------------------------------------ raw baselines */

/* TCP ping-pong: the echo side. */
/* ------------------------------------------------------------------ agents */

/* Two `handoff agent` processes as two devices on loopback: each with its
 * own XDG_CONFIG_HOME (the bench's account, a device identity of its own),
 * XDG_RUNTIME_DIR and socket, unicast beacons to the other's port, and a
 * channel on 127.0.0.1. [0] serves the sender app, [1] the receiver. */
struct agents {
    int both;    /* 0: only [1], the receiver's; the sender embedded */
    int port[2]; /* beacon ports: [0] the sender's device, [1] the receiver's */
    char dir[64];
    char socket[2][160];
    pid_t pid[2];
    int watched; /* where in agent_pids its pids are: 0 or 2 */
    long wakeups[2], cpu_us[2]; /* at the start of its rounds (agents_mark) */
    char why[240];
};

static void remove_tree(const char *dir)
{
    pid_t p = fork();
    if (p == 0) {
        execlp("rm", "rm", "-rf", "--", dir, (char *)NULL);
        _exit(127);
    }
    if (p > 0)
        waitpid(p, NULL, 0);
}

static int log_says(const char *path, const char *what, char *tail, size_t tail_size)
{
    char buf[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (tail && tail_size) {
        size_t keep = n < tail_size - 1 ? n : tail_size - 1;
        memcpy(tail, buf + n - keep, keep);
        tail[keep] = 0;
        for (char *c = tail; *c; c++)
            if (*c == '\n')
                *c = ' ';
    }
    return strstr(buf, what) != NULL;
}

/* A process's wake-ups (voluntary context switches, all its threads) and
 * CPU time (us) so far, from /proc; -1 when unreadable. */
static void process_cost(pid_t pid, long *wakeups, long *cpu_us)
{
    char path[64];
    *wakeups = -1;
    *cpu_us = -1;
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char status[320], line[128];
        snprintf(status, sizeof status, "/proc/%d/task/%s/status", (int)pid, e->d_name);
        FILE *f = fopen(status, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
                total += atol(line + 24);
        fclose(f);
    }
    closedir(d);
    *wakeups = total;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the command may hold spaces */
    unsigned long utime = 0, stime = 0;
    if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) == 2)
        *cpu_us = (long)((utime + stime) * 1000000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/* What each agent of a pair cost during its rounds (set by agents_mark). */
static void agents_mark(struct agents *ag)
{
    for (int i = 0; i < 2; i++)
        if (ag->pid[i] > 0)
            process_cost(ag->pid[i], &ag->wakeups[i], &ag->cpu_us[i]);
}

static void agents_report(struct agents *ag, long rounds)
{
    for (int i = ag->both ? 0 : 1; i < 2 && rounds > 0; i++) {
        long w, c;
        if (ag->pid[i] <= 0 || ag->wakeups[i] < 0)
            continue;
        process_cost(ag->pid[i], &w, &c);
        if (w < 0)
            continue;
        extra_printf("  continue %s  the %s's agent per round: %.2f wake-ups (voluntary context "
                     "switches, a count), %.0f us of CPU\n",
                     ag->both ? "2agnt" : "1agnt", i ? "receiver" : "sender",
                     (double)(w - ag->wakeups[i]) / (double)rounds,
                     (double)(c - ag->cpu_us[i]) / (double)rounds);
    }
}

static void agents_stop(struct agents *ag)
{
    for (int i = 0; i < 2; i++) {
        if (ag->pid[i] <= 0)
            continue;
        kill(ag->pid[i], SIGTERM);
        int64_t end = now_ns() + 5LL * 1000000000;
        while (waitpid(ag->pid[i], NULL, WNOHANG) == 0) {
            if (now_ns() > end) {
                kill(ag->pid[i], SIGKILL);
                waitpid(ag->pid[i], NULL, 0);
                break;
            }
            sleep_ns(10 * 1000000);
        }
        ag->pid[i] = 0;
        atomic_store(&agent_pids[ag->watched + i], 0);
    }
    if (ag->dir[0])
        remove_tree(ag->dir);
    ag->dir[0] = 0;
}

/* 0 when both agents listen; else -1 with ag->why. */
static int agents_start(struct agents *ag, const char *tool, int both)
{
    memset(ag, 0, sizeof *ag);
    ag->both = both;
    ag->watched = both ? 2 : 0;
    if (!tool || access(tool, X_OK) != 0) {
        snprintf(ag->why, sizeof ag->why, "no handoff tool (give its path as the first argument)");
        return -1;
    }
    snprintf(ag->dir, sizeof ag->dir, "/tmp/handoff-bench-XXXXXX");
    if (!mkdtemp(ag->dir)) {
        snprintf(ag->why, sizeof ag->why, "mkdtemp: %s", strerror(errno));
        ag->dir[0] = 0;
        return -1;
    }
    int *port = ag->port;
    port[0] = pick_udp_port();
    port[1] = pick_udp_port();
    while (port[1] == port[0])
        port[1] = pick_udp_port();
    if (port[0] < 0 || port[1] < 0) {
        snprintf(ag->why, sizeof ag->why, "no free UDP port");
        return -1;
    }
    char config[2][128], runtime[2][128], logs[2][128];
    for (int i = 0; i < 2; i++) {
        char home[96], account_dir[160];
        snprintf(home, sizeof home, "%s/%d", ag->dir, i);
        snprintf(config[i], sizeof config[i], "%s/config", home);
        snprintf(runtime[i], sizeof runtime[i], "%s/run", home);
        snprintf(logs[i], sizeof logs[i], "%s/agent.log", home);
        snprintf(ag->socket[i], sizeof ag->socket[i], "%s/handoff/agent.sock", runtime[i]);
        snprintf(account_dir, sizeof account_dir, "%s/handoff", config[i]);
        handoff_account *account = handoff_account_from_key(bench_key, sizeof bench_key);
        if (mkdir(home, 0700) != 0 || mkdir(config[i], 0700) != 0 || mkdir(runtime[i], 0700) != 0 ||
            !account || handoff_account_save(account, account_dir) != HANDOFF_OK) {
            snprintf(ag->why, sizeof ag->why, "agent %d's directories: %s", i,
                     account ? handoff_last_error_message() : strerror(errno));
            handoff_account_free(account);
            return -1;
        }
        handoff_account_free(account);
    }
    for (int i = both ? 0 : 1; i < 2; i++) {
        char beacon[16], peer[32];
        snprintf(beacon, sizeof beacon, "%d", port[i]);
        snprintf(peer, sizeof peer, "127.0.0.1:%d", port[1 - i]);
        pid_t p = fork();
        if (p == 0) {
            int log = open(logs[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
            int null = open("/dev/null", O_RDWR);
            if (log >= 0)
                dup2(log, 2);
            if (null >= 0)
                dup2(null, 0), dup2(null, 1);
            setenv("XDG_CONFIG_HOME", config[i], 1);
            setenv("XDG_RUNTIME_DIR", runtime[i], 1);
            unsetenv("HANDOFF_AGENT_SOCKET");
            unsetenv("DBUS_SESSION_BUS_ADDRESS");
            unsetenv("LISTEN_FDS");
            unsetenv("LISTEN_PID");
            execl(tool, "handoff", "agent", "--socket", ag->socket[i], "--no-launch",
                  "--no-notifications", "--no-multicast", "--beacon-port", beacon, "--peer", peer,
                  "--channel", "127.0.0.1:0", "--connect-timeout", "1", "--fetch-timeout", "1.5",
                  (char *)NULL);
            _exit(127);
        }
        if (p < 0) {
            snprintf(ag->why, sizeof ag->why, "fork: %s", strerror(errno));
            return -1;
        }
        ag->pid[i] = p;
        atomic_store(&agent_pids[ag->watched + i], p);
    }
    /* The agent logs "listening" once its socket accepts. */
    int64_t end = now_ns() + 20LL * 1000000000;
    for (int i = both ? 0 : 1; i < 2; i++) {
        char tail[160] = "";
        while (!log_says(logs[i], "listening", tail, sizeof tail)) {
            if (waitpid(ag->pid[i], NULL, WNOHANG) == ag->pid[i]) {
                ag->pid[i] = 0;
                atomic_store(&agent_pids[ag->watched + i], 0);
                snprintf(ag->why, sizeof ag->why, "agent %d exited: %s", i, tail);
                return -1;
            }
            if (now_ns() > end) {
                snprintf(ag->why, sizeof ag->why, "agent %d did not listen within 20 s: %s", i, tail);
                return -1;
            }
            sleep_ns(10 * 1000000);
        }
    }
    return 0;
}

static void *echo_main(void *arg)
{
    int listener = *(int *)arg;
    int fd = accept_within(listener, 2000);
    char buf[MSG];
    if (fd < 0)
        return NULL;
    set_rcvtimeo(fd, 2000);
    while (read_full(fd, buf, MSG) == 0 && write_full(fd, buf, MSG) == 0) {
    }
    close(fd);
    return NULL;
}

static void raw_tcp_rtt(int row)
{
    series s;
    series_init(&s, RAW_RTT_N);
    int port, listener = tcp_listener(&port);
    pthread_t t;
    if (listener < 0 || pthread_create(&t, NULL, echo_main, &listener) != 0) {
        note(row, "could not set up");
        return;
    }
    int fd = tcp_connect(port);
    char buf[MSG];
    memset(buf, 'x', sizeof buf);
    for (int i = 0; fd >= 0 && i < RAW_RTT_WARMUP + RAW_RTT_N; i++) {
        int64_t t0 = now_ns();
        if (write_full(fd, buf, MSG) != 0 || read_full(fd, buf, MSG) != 0) {
            s.miss++;
            break;
        }
        if (i >= RAW_RTT_WARMUP)
            series_add(&s, now_ns() - t0);
    }
    if (fd >= 0)
        close(fd);
    pthread_join(t, NULL);
    close(listener);
    set_result(row, &s);
    free(s.v);
}

/* Fresh connections: accept, echo one message, wait for the close. */
struct fresh_server {
    int listener;
    int count;
};

static void *fresh_server_main(void *arg)
{
    struct fresh_server *fs = arg;
    char buf[MSG];
    for (int i = 0; i < fs->count; i++) {
        int fd = accept_within(fs->listener, 2000);
        if (fd < 0)
            return NULL;
        if (read_full(fd, buf, MSG) == 0 && write_full(fd, buf, MSG) == 0)
            (void)recv(fd, buf, sizeof buf, 0); /* the client's close */
        close(fd);
    }
    return NULL;
}

static void raw_tcp_fresh(void)
{
    series s;
    series_init(&s, RAW_FRESH_N);
    int port;
    struct fresh_server fs = {tcp_listener(&port), RAW_FRESH_WARMUP + RAW_FRESH_N};
    pthread_t t;
    if (fs.listener < 0 || pthread_create(&t, NULL, fresh_server_main, &fs) != 0) {
        note(ROW_RAW_FRESH, "could not set up");
        return;
    }
    char buf[MSG];
    memset(buf, 'y', sizeof buf);
    for (int i = 0; i < fs.count; i++) {
        int64_t t0 = now_ns();
        int fd = tcp_connect(port);
        int ok = fd >= 0 && write_full(fd, buf, MSG) == 0 && read_full(fd, buf, MSG) == 0;
        if (fd >= 0)
            close(fd);
        int64_t t1 = now_ns();
        if (!ok) {
            s.miss++;
            break; /* the server gives up on its own */
        }
        if (i >= RAW_FRESH_WARMUP)
            series_add(&s, t1 - t0);
    }
    pthread_join(t, NULL);
    close(fs.listener);
    set_result(ROW_RAW_FRESH, &s);
    free(s.v);
}

/* One-way wake-up: thread A stamps the time and signals through `to`
 * (a pipe or a UDP socket); thread B, blocked in poll(), takes the time
 * difference when it wakes and answers through `back`. */
struct oneway {
    int to_read, to_write;     /* A writes to_write, B polls to_read */
    int back_read, back_write; /* B writes back_write, A waits on back_read */
    int udp;                   /* datagrams (recv/send) rather than pipes */
    int64_t gap_ns;            /* idle time before each signal */
    int warmup;
    _Atomic int64_t sent_ns;
    series s;
    int count;
};

static void *oneway_b_main(void *arg)
{
    struct oneway *o = arg;
    char buf[16];
    for (int i = 0; i < o->count; i++) {
        struct pollfd p = {o->to_read, POLLIN, 0};
        if (poll(&p, 1, 2000) <= 0)
            return NULL;
        int64_t t1 = now_ns();
        ssize_t n = o->udp ? recv(o->to_read, buf, sizeof buf, 0) : read(o->to_read, buf, 1);
        if (n <= 0)
            return NULL;
        if (i >= o->warmup)
            series_add(&o->s, t1 - atomic_load(&o->sent_ns));
        if ((o->udp ? send(o->back_write, buf, 1, 0) : write(o->back_write, buf, 1)) != 1)
            return NULL;
    }
    return NULL;
}

static void raw_oneway(int row, int udp, int64_t gap_ns, int warmup, int n)
{
    struct oneway o;
    memset(&o, 0, sizeof o);
    o.udp = udp;
    o.gap_ns = gap_ns;
    o.warmup = warmup;
    o.count = warmup + n;
    series_init(&o.s, (size_t)n);
    if (udp) {
        int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in any = loopback(0);
        if (a < 0 || b < 0 || bind(a, (struct sockaddr *)&any, sizeof any) != 0 ||
            bind(b, (struct sockaddr *)&any, sizeof any) != 0) {
            note(row, "could not set up");
            return;
        }
        struct sockaddr_in pa = loopback(bound_port(a)), pb = loopback(bound_port(b));
        if (connect(a, (struct sockaddr *)&pb, sizeof pb) != 0 ||
            connect(b, (struct sockaddr *)&pa, sizeof pa) != 0) {
            note(row, "could not set up");
            return;
        }
        o.to_write = a, o.back_read = a, o.to_read = b, o.back_write = b;
    } else {
        int p1[2], p2[2];
        if (pipe(p1) != 0 || pipe(p2) != 0) {
            note(row, "could not set up");
            return;
        }
        o.to_read = p1[0], o.to_write = p1[1], o.back_read = p2[0], o.back_write = p2[1];
    }
    pthread_t t;
    if (pthread_create(&t, NULL, oneway_b_main, &o) != 0) {
        note(row, "could not set up");
        return;
    }
    char buf[16] = "w";
    for (int i = 0; i < o.count; i++) {
        if (o.gap_ns)
            sleep_ns(o.gap_ns);
        atomic_store(&o.sent_ns, now_ns());
        if ((udp ? send(o.to_write, buf, 1, 0) : write(o.to_write, buf, 1)) != 1)
            break;
        struct pollfd p = {o.back_read, POLLIN, 0};
        if (poll(&p, 1, 1000) <= 0) {
            o.s.miss++;
            break;
        }
        if ((udp ? recv(o.back_read, buf, sizeof buf, 0) : read(o.back_read, buf, 1)) <= 0)
            break;
    }
    pthread_join(t, NULL);
    if (udp) {
        close(o.to_write);
        close(o.to_read);
    } else {
        close(o.to_read), close(o.to_write), close(o.back_read), close(o.back_write);
    }
    set_result(row, &o.s);
    free(o.s.v);
}


/* ------------------------------------------------------------------ C floors */

/* The same thread hand-offs as the library's paths, in plain C with no TLS,
 * no crypto and no payload coding: what the machine charges for the
 * structure alone. Message sizes follow the library's (64-byte request,
 * 512-byte reply). */

/* Reads one message from `in` and writes it to `out`, until `in` closes. */
struct relay {
    int in, out;
};

static void *relay_main(void *arg)
{
    struct relay *r = arg;
    char buf[2048];
    for (;;) {
        struct pollfd p = {r->in, POLLIN, 0};
        if (poll(&p, 1, 3000) <= 0)
            return NULL;
        ssize_t n = read(r->in, buf, sizeof buf);
        if (n <= 0 || write(r->out, buf, (size_t)n) != n)
            return NULL;
    }
}

struct floor_ctx {
    int port;           /* server's listener */
    int listener;
    int warm_fd;        /* warm: the client's connection */
    int to_main[2];     /* server connection thread -> "sender main" */
    int to_server[2];   /* "sender main" -> server connection thread */
    int to_receiver[2]; /* fetch thread -> "receiver main" */
    int count;
};

static struct floor_ctx *floor_current;

/* A server connection: request in, through the "main thread" and back,
 * reply out; until the client closes. */
static void serve_connection(struct floor_ctx *fc, int fd)
{
    char req[64], rep[512], b;
    memset(rep, 'r', sizeof rep);
    set_rcvtimeo(fd, 3000);
    while (read_full(fd, req, sizeof req) == 0) {
        struct pollfd p = {fc->to_server[0], POLLIN, 0};
        if (write(fc->to_main[1], "f", 1) != 1 || poll(&p, 1, 3000) <= 0 ||
            read(fc->to_server[0], &b, 1) != 1 || write_full(fd, rep, sizeof rep) != 0)
            break;
    }
    close(fd);
}

static void *floor_conn_thread(void *arg)
{
    int fd = *(int *)arg;
    free(arg);
    serve_connection(floor_current, fd);
    return NULL;
}

/* The accept loop: a thread per connection, as the library's server. */
static void *floor_accept_main(void *arg)
{
    struct floor_ctx *fc = arg;
    for (int i = 0; i < fc->count; i++) {
        int fd = accept_within(fc->listener, 3000);
        if (fd < 0)
            return NULL;
        int *pfd = malloc(sizeof *pfd);
        pthread_t t;
        if (!pfd) {
            close(fd);
            return NULL;
        }
        *pfd = fd;
        if (pthread_create(&t, NULL, floor_conn_thread, pfd) != 0) {
            free(pfd);
            close(fd);
            return NULL;
        }
        pthread_detach(t);
    }
    return NULL;
}

struct floor_fetch {
    struct floor_ctx *fc;
    int fresh;
};

/* The fetch thread, started per round as the library does. */
static void *floor_fetch_main(void *arg)
{
    struct floor_fetch *ff = arg;
    struct floor_ctx *fc = ff->fc;
    char req[64], rep[512];
    memset(req, 'q', sizeof req);
    int fd = ff->fresh ? tcp_connect(fc->port) : fc->warm_fd;
    int ok = fd >= 0 && write_full(fd, req, sizeof req) == 0 && read_full(fd, rep, sizeof rep) == 0;
    if (ff->fresh && fd >= 0)
        close(fd);
    if (write(fc->to_receiver[1], ok ? "k" : "x", 1) != 1) {
        /* the receiver times out */
    }
    return NULL;
}

static void floor_fetch(int row, int fresh)
{
    static struct floor_ctx fc;
    int n = FLOOR_N, warmup = 20;
    series s;
    series_init(&s, (size_t)n);
    memset(&fc, 0, sizeof fc);
    fc.count = fresh ? n + warmup : 1;
    fc.listener = tcp_listener(&fc.port);
    floor_current = &fc;
    if (fc.listener < 0 || pipe(fc.to_main) != 0 || pipe(fc.to_server) != 0 ||
        pipe(fc.to_receiver) != 0) {
        note(row, "could not set up");
        free(s.v);
        return;
    }
    struct relay main_thread = {fc.to_main[0], fc.to_server[1]};
    pthread_t accept_thread, relay_thread;
    pthread_create(&accept_thread, NULL, floor_accept_main, &fc);
    pthread_create(&relay_thread, NULL, relay_main, &main_thread);
    fc.warm_fd = fresh ? -1 : tcp_connect(fc.port);
    struct floor_fetch ff = {&fc, fresh};
    for (int i = 0; i < n + warmup; i++) {
        sleep_ns(ROUND_GAP_NS);
        pthread_t t;
        char b = 0;
        int64_t t0 = now_ns();
        if (pthread_create(&t, NULL, floor_fetch_main, &ff) != 0)
            break;
        pthread_detach(t);
        struct pollfd p = {fc.to_receiver[0], POLLIN, 0};
        int woke = poll(&p, 1, 3000) > 0;
        int64_t t1 = now_ns();
        if (!woke || read(fc.to_receiver[0], &b, 1) != 1 || b != 'k') {
            if (i >= warmup)
                s.miss++;
            break;
        }
        if (i >= warmup)
            series_add(&s, t1 - t0);
    }
    if (fc.warm_fd >= 0)
        close(fc.warm_fd); /* the connection thread sees EOF */
    pthread_join(accept_thread, NULL);
    close(fc.to_main[1]); /* the relay sees EOF */
    pthread_join(relay_thread, NULL);
    sleep_ns(20 * 1000000); /* detached connection threads finish */
    close(fc.listener);
    close(fc.to_main[0]), close(fc.to_server[0]), close(fc.to_server[1]);
    close(fc.to_receiver[0]), close(fc.to_receiver[1]);
    set_result(row, &s);
    free(s.v);
}

/* become_current pokes the scheduler thread (a pipe), which sends a UDP
 * datagram; the receiver's beacon thread posts to the app's thread (a
 * pipe), which wakes. */
static void floor_beacon(void)
{
    int n = FLOOR_N, warmup = 20;
    series s;
    series_init(&s, (size_t)n);
    int poke_pipe[2], app_pipe[2];
    int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = loopback(0);
    if (pipe(poke_pipe) != 0 || pipe(app_pipe) != 0 || a < 0 || b < 0 ||
        bind(a, (struct sockaddr *)&any, sizeof any) != 0 ||
        bind(b, (struct sockaddr *)&any, sizeof any) != 0) {
        note(ROW_FLOOR_BEACON, "could not set up");
        free(s.v);
        return;
    }
    struct sockaddr_in pb = loopback(bound_port(b));
    if (connect(a, (struct sockaddr *)&pb, sizeof pb) != 0) {
        note(ROW_FLOOR_BEACON, "could not set up");
        free(s.v);
        return;
    }
    struct relay scheduler = {poke_pipe[0], a}, beacon_rx = {b, app_pipe[1]};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, relay_main, &scheduler);
    pthread_create(&t2, NULL, relay_main, &beacon_rx);
    char buf[400];
    memset(buf, 'b', sizeof buf);
    for (int i = 0; i < n + warmup; i++) {
        sleep_ns(ROUND_GAP_NS);
        int64_t t0 = now_ns();
        if (write(poke_pipe[1], buf, sizeof buf) != (ssize_t)sizeof buf)
            break;
        struct pollfd p = {app_pipe[0], POLLIN, 0};
        int woke = poll(&p, 1, 3000) > 0;
        int64_t tw = now_ns();
        if (!woke || read(app_pipe[0], buf, sizeof buf) <= 0) {
            if (i >= warmup)
                s.miss++;
            break;
        }
        if (i >= warmup)
            series_add(&s, tw - t0);
    }
    close(poke_pipe[1]); /* the scheduler relay sees EOF ... */
    pthread_join(t1, NULL);
    shutdown(b, SHUT_RDWR); /* ... and the beacon relay wakes */
    close(a);
    pthread_join(t2, NULL);
    close(b), close(poke_pipe[0]), close(app_pipe[0]), close(app_pipe[1]);
    set_result(ROW_FLOOR_BEACON, &s);
    free(s.v);
}

/* ------------------------------------------------------------------ handoff pair */

enum { PH_IDLE, PH_CONTINUE, PH_BEACON };

enum { RS_WAIT_REMOTE, RS_TURN, RS_READY, RS_IN_FLIGHT, RS_CONFIRM, RS_GAP, RS_DRAIN, RS_DONE };

struct pair;

struct side {
    struct pair *pair;
    int is_sender;
    int beacon_port;
    char peer_text[2][32];
    const char *peers[2];
    size_t peer_count;
    int notify[2]; /* a pipe: the other thread wakes this one's poll() */
    handoff_application *app;
    handoff_responder *responder;
    handoff_activity *activity; /* sender: the activity continued */
    pthread_t thread;
    int started;
    _Atomic int ready; /* 1 running, -1 setup failed */
    char error[200];
};

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

static void poke(struct side *sd)
{
    char c = 1;
    if (write(sd->notify[1], &c, 1) < 0) {
        /* a full pipe already wakes the reader */
    }
}

static void drain_fd(int fd)
{
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {
    }
}

/* ---- callbacks ---- */

static void put(handoff_value *dict, const char *key, handoff_value *v)
{
    handoff_value_dictionary_set(dict, key, v);
    handoff_value_free(v);
}

/* Sender's responder: the save writes the current round tag. */
static void on_update(handoff_responder *r, handoff_activity *activity, void *user_data)
{
    struct side *sd = user_data;
    struct pair *pr = sd->pair;
    (void)r;
    handoff_value *info = handoff_value_new_dictionary();
    put(info, "round", handoff_value_new_integer(atomic_load(&pr->round_tag)));
    put(info, "latitude", handoff_value_new_real(37.3349));
    put(info, "longitude", handoff_value_new_real(-122.0090));
    put(info, "zoom", handoff_value_new_integer(12));
    put(info, "layer", handoff_value_new_string("standard"));
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

/* ---- receiver: the continue rounds ---- */

/* The warm rows (embedded, one agent, two agents) run interleaved: the
 * pairs of the ring take turns, one round each, so that a machine whose
 * load changes during the run weighs on the three rows alike and their
 * difference is the agents' (a pair waits in RS_TURN for its turn). */
#define RING_MAX 3
static struct pair *ring[RING_MAX];
static int ring_size;
static _Atomic int ring_turn;

static void poke(struct side *sd);

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
static int receiver_continue_step(struct pair *pr)
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

/* ---- sender: the beacon rounds ---- */

static void probe_read(struct pair *pr, int r);

static int sender_beacon_step(struct pair *pr)
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

/* ---- the side threads ---- */

static int side_setup(struct side *sd)
{
    struct pair *pr = sd->pair;
    handoff_manifest *m = handoff_manifest_new("com.example.bench", "BENCHTEAM");
    if (!m || handoff_manifest_declare_activity_type(m, ACTIVITY_TYPE) != HANDOFF_OK ||
        handoff_manifest_declare_activity_type(m, BEACON_TYPE) != HANDOFF_OK) {
        snprintf(sd->error, sizeof sd->error, "manifest: %s", handoff_last_error_message());
        handoff_manifest_free(m);
        return -1;
    }
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

/* Creates both applications on their own threads; 0 when the receiver has
 * been offered the sender's activity. */
static int pair_start(struct pair *pr, int reuse_ms, const struct agents *ag, char *why,
                      size_t why_size)
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

static void pair_stop(struct pair *pr)
{
    atomic_store(&pr->stop, 1);
    for (int i = 0; i < 2; i++) {
        struct side *sd = i ? &pr->receiver : &pr->sender;
        if (sd->notify[1] >= 0)
            poke(sd);
        if (sd->started)
            pthread_join(sd->thread, NULL);
        sd->started = 0;
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

/* Waits (bounded) until the phase says it is done. */
static void run_phase(struct pair *pr, int phase, int64_t budget)
{
    pr->phase_end = now_ns() + budget;
    atomic_store(&pr->phase_done, 0);
    atomic_store(&pr->phase, phase);
    poke(&pr->sender);
    poke(&pr->receiver);
    int64_t hard = pr->phase_end + DRAIN_TIMEOUT_NS + 2LL * 1000000000;
    while (!atomic_load(&pr->phase_done) && now_ns() < hard)
        sleep_ns(5 * 1000000);
    if (!atomic_load(&pr->phase_done)) {
        /* Overran: stop both threads before reading what they wrote. */
        atomic_store(&pr->stop, 1);
        for (int i = 0; i < 2; i++) {
            struct side *sd = i ? &pr->receiver : &pr->sender;
            poke(sd);
            if (sd->started)
                pthread_join(sd->thread, NULL);
            sd->started = 0;
        }
    }
    atomic_store(&pr->phase, PH_IDLE);
}

/* ---- measurements on a pair ---- */

static double median_of(const series *s)
{
    return series_stats(s).p50;
}

static double p99_of(const series *s)
{
    return series_stats(s).p99;
}

/* The library's dispatch wake-up: a thread that is not the app's main
 * thread sets needs_save; the app's thread wakes on its fd and runs the
 * save. From set_flag to the update callback. */
static void measure_dispatch(struct pair *pr)
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

static void continue_begin(struct pair *pr)
{
    pr->rs = RS_WAIT_REMOTE;
    pr->round = 0;
    pr->warmup = CONTINUE_WARMUP;
    pr->rounds_total = CONTINUE_WARMUP + CONTINUE_N;
}

static void continue_end(struct pair *pr, int row);

static void measure_continue(struct pair *pr, int row)
{
    continue_begin(pr);
    run_phase(pr, PH_CONTINUE, PHASE_BUDGET_CONTINUE_NS);
    continue_end(pr, row);
}

/* The continue rounds of several pairs, interleaved (the ring above):
 * one round of each in turn. */
static void measure_continue_ring(struct pair **prs, const int *rows, int n)
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
        if (!atomic_load(&prs[i]->phase_done)) {
            /* Overran: stop its threads before reading what they wrote. */
            atomic_store(&prs[i]->stop, 1);
            for (int k = 0; k < 2; k++) {
                struct side *sd = k ? &prs[i]->receiver : &prs[i]->sender;
                poke(sd);
                if (sd->started)
                    pthread_join(sd->thread, NULL);
                sd->started = 0;
            }
        }
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
    pthread_mutex_lock(&report_lock);
    row_incomplete[row] = (size_t)pr->confirm_missing_measured;
    pthread_mutex_unlock(&report_lock);
    const char *kind = row == ROW_FRESH ? "fresh" : row == ROW_WARM ? "warm" : row == ROW_AGENT_RECV ? "1agnt" : "2agnt";
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
    if (row == ROW_AGENT_RECV || row == ROW_AGENT_WARM)
        return; /* the analysis's fresh/warm figures are the embedded ones */
    double *fetch = row == ROW_FRESH ? &g_fetch_fresh : &g_fetch_warm;
    double *confirm = row == ROW_FRESH ? &g_confirm_fresh : &g_confirm_warm;
    *fetch = median_of(&pr->seg_fetch);
    *confirm = median_of(&pr->seg_confirm);
}

static void measure_beacon(struct pair *pr)
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

/* Thread creation: the library starts a thread per fetch and per confirm. */
static _Atomic int64_t thread_started_ns;

static void *stamp_main(void *arg)
{
    (void)arg;
    atomic_store(&thread_started_ns, now_ns());
    return NULL;
}

static void measure_thread_start(void)
{
    series s;
    series_init(&s, 500);
    for (int i = 0; i < 520; i++) {
        pthread_t t;
        atomic_store(&thread_started_ns, 0);
        int64_t t0 = now_ns();
        if (pthread_create(&t, NULL, stamp_main, NULL) != 0)
            break;
        pthread_join(t, NULL);
        if (i >= 20)
            series_add(&s, atomic_load(&thread_started_ns) - t0);
    }
    stats st = series_stats(&s);
    g_thread_start = st.p50;
    extra_printf("  raw thread      pthread_create -> new thread running %.1f (p99 %.1f)\n",
                 st.p50 / 1e3, st.p99 / 1e3);
    free(s.v);
}

/* The payload's own cost: encode as the sender does after its save, decode
 * as the receiver does before continue_user_activity. */
static void measure_coding(void)
{
    handoff_activity *a = handoff_activity_new(ACTIVITY_TYPE);
    handoff_value *info = handoff_value_new_dictionary();
    if (!a || !info)
        return;
    put(info, "round", handoff_value_new_integer(123));
    put(info, "latitude", handoff_value_new_real(37.3349));
    put(info, "longitude", handoff_value_new_real(-122.0090));
    put(info, "zoom", handoff_value_new_integer(12));
    put(info, "layer", handoff_value_new_string("standard"));
    handoff_activity_set_title(a, "bench viewport");
    handoff_activity_add_user_info_entries(a, info);
    series enc, dec;
    series_init(&enc, 2000);
    series_init(&dec, 2000);
    size_t size = 0;
    for (int i = 0; i < 2100; i++) {
        uint8_t *bytes = NULL;
        size_t length = 0;
        int64_t t0 = now_ns();
        int rc = handoff_activity_encode(a, &bytes, &length);
        int64_t t1 = now_ns();
        handoff_activity *b = rc == HANDOFF_OK ? handoff_activity_decode(bytes, length) : NULL;
        int64_t t2 = now_ns();
        if (b && i >= 100) {
            series_add(&enc, t1 - t0);
            series_add(&dec, t2 - t1);
        }
        size = length;
        handoff_activity_free(b);
        handoff_free(bytes);
    }
    g_encode = series_stats(&enc).p50;
    g_decode = series_stats(&dec).p50;
    extra_printf("  payload coding  handoff_activity_encode %.1f, handoff_activity_decode %.1f "
                 "(%zu-byte payload, userInfo of 5 entries)\n",
                 series_stats(&enc).p50 / 1e3, series_stats(&dec).p50 / 1e3, size);
    free(enc.v), free(dec.v);
    handoff_value_free(info);
    handoff_activity_free(a);
}

/* ------------------------------------------------------------------ main */

/* ------------------------------------------------------------------ UDP round trip */

static void *udp_echo_main(void *arg)
{
    int fd = *(int *)arg;
    char buf[MSG];
    struct sockaddr_in from;
    for (;;) {
        socklen_t len = sizeof from;
        ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
        if (n <= 0)
            return NULL; /* the receive timeout: the measurement ended */
        if (n == 1)
            return NULL; /* the stop byte */
        if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, len) != n)
            return NULL;
    }
}

static void raw_udp_rtt(void)
{
    series s;
    series_init(&s, UDP_RTT_N);
    int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in any = loopback(0);
    pthread_t t;
    if (a < 0 || b < 0 || bind(a, (struct sockaddr *)&any, sizeof any) != 0 ||
        bind(b, (struct sockaddr *)&any, sizeof any) != 0) {
        note(ROW_RAW_UDP_RTT, "could not set up");
        goto out;
    }
    set_rcvtimeo(a, 500);
    set_rcvtimeo(b, 2000);
    struct sockaddr_in to = loopback(bound_port(b));
    if (pthread_create(&t, NULL, udp_echo_main, &b) != 0) {
        note(ROW_RAW_UDP_RTT, "could not set up");
        goto out;
    }
    char buf[MSG];
    memset(buf, 'u', sizeof buf);
    for (int i = 0; i < UDP_RTT_WARMUP + UDP_RTT_N; i++) {
        int64_t t0 = now_ns();
        if (sendto(a, buf, MSG, 0, (struct sockaddr *)&to, sizeof to) != MSG ||
            recv(a, buf, sizeof buf, 0) != MSG) {
            if (i >= UDP_RTT_WARMUP)
                s.miss++;
            continue;
        }
        if (i >= UDP_RTT_WARMUP)
            series_add(&s, now_ns() - t0);
    }
    (void)sendto(a, "x", 1, 0, (struct sockaddr *)&to, sizeof to);
    pthread_join(t, NULL);
    set_result(ROW_RAW_UDP_RTT, &s);
out:
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    free(s.v);
}

/* ------------------------------------------------------------------ cold start */

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
    handoff_manifest *m = handoff_manifest_new("com.example.bench", "BENCHTEAM");
    if (!m || handoff_manifest_declare_activity_type(m, ACTIVITY_TYPE) != HANDOFF_OK) {
        snprintf(why, why_size, "manifest: %s", handoff_last_error_message());
        handoff_manifest_free(m);
        return NULL;
    }
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
static void measure_cold_start(void)
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

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    start_ns = now_ns();
    start_busy = machine_busy_seconds();
    start_cpu = process_cpu_seconds();

    if (handoff_version_number() != HANDOFF_VERSION_NUMBER)
        printf("bench: header %s but library %s\n", HANDOFF_VERSION_STRING,
               handoff_version_string());

    pthread_t watchdog;
    pthread_create(&watchdog, NULL, watchdog_main, NULL);

    quick = getenv("BENCH_QUICK") != NULL;
    printf("bench: raw baselines...\n");
    start_work = cpu_work_ns();
    if (!quick) {
    raw_tcp_rtt(ROW_RAW_RTT);
    raw_tcp_fresh();
    raw_oneway(ROW_RAW_PIPE, 0, 0, RAW_WAKE_WARMUP, RAW_WAKE_N);
    raw_oneway(ROW_RAW_PIPE_IDLE, 0, ROUND_GAP_NS, 10, RAW_IDLE_N);
    raw_oneway(ROW_RAW_UDP, 1, 0, RAW_WAKE_WARMUP, RAW_WAKE_N);
    floor_fetch(ROW_FLOOR_FRESH, 1);
    floor_fetch(ROW_FLOOR_WARM, 0);
    floor_beacon();
    measure_thread_start();
    measure_coding();
    }
    if (quick) raw_tcp_rtt(ROW_RAW_RTT);

    static struct pair pr;
    char why[256];

    if (!quick) {
    printf("bench: fresh connections (connection_reuse_ms = -1)...\n");
    if (pair_start(&pr, -1, NULL, why, sizeof why) == 0) {
        measure_dispatch(&pr);
        measure_continue(&pr, ROW_FRESH);
    } else {
        note(ROW_DISPATCH, "%s", why);
        note(ROW_FRESH, "%s", why);
        printf("bench: fresh pair: %s\n", why);
    }
    pair_stop(&pr);
    }

    /* The three warm rows, interleaved round by round (the ring): the
     * embedded pair, the receiver through an agent, both through agents. */
    printf("bench: warm connection (connection_reuse_ms = 0, the default), embedded and through "
           "handoff agents, interleaved...\n");
    static struct pair agent_pr[2];
    static struct agents ag[2];
    int agent_up[2] = {0, 0};
    const char *tool = argc > 1 ? argv[1] : getenv("HANDOFF_TOOL");
    if (pair_start(&pr, 0, NULL, why, sizeof why) == 0) {
        struct pair *prs[3] = {&pr};
        int rows[3] = {ROW_WARM};
        int n = 1;
        for (int both = 0; both < 2; both++) {
            int row = both ? ROW_AGENT_WARM : ROW_AGENT_RECV;
            if (agents_start(&ag[both], tool, both) == 0 &&
                pair_start(&agent_pr[both], 0, &ag[both], why, sizeof why) == 0) {
                prs[n] = &agent_pr[both];
                rows[n++] = row;
            } else {
                note(row, "%s", ag[both].why[0] ? ag[both].why : why);
                printf("bench: agent pair: %s\n", ag[both].why[0] ? ag[both].why : why);
            }
            agent_up[both] = !ag[both].why[0];
            unsetenv("HANDOFF_AGENT_SOCKET");
        }
        for (int both = 0; both < 2; both++)
            agents_mark(&ag[both]);
        measure_continue_ring(prs, rows, n);
        for (int both = 0; both < 2; both++) {
            if (agent_up[both]) {
                agents_report(&ag[both], agent_pr[both].round);
                pair_stop(&agent_pr[both]);
            }
            agents_stop(&ag[both]);
        }
        printf("bench: beacons...\n");
        if (!quick)
            measure_beacon(&pr);
    } else {
        note(ROW_WARM, "%s", why);
        note(ROW_EVENT, "%s", why);
        printf("bench: warm pair: %s\n", why);
    }
    pair_stop(&pr);

    printf("bench: cold start (receiver start -> available)...\n");
    if (!quick) {
    raw_udp_rtt();
    measure_cold_start();
    }

    raw_tcp_rtt(ROW_RAW_RTT_END);
    end_work = cpu_work_ns();
    atomic_store(&all_done, 1);
    print_report(NULL);
    pthread_join(watchdog, NULL);
    return check_rounds();
}
