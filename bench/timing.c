/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Time and statistics, shared by the benches (timing.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sleep_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int ms_until(int64_t deadline, int cap)
{
    int64_t left = deadline - now_ns();
    if (left <= 0)
        return 0;
    int64_t ms = (left + 999999) / 1000000;
    return ms > cap ? cap : (int)ms;
}

/* CPU time the whole machine spent busy, in seconds (/proc/stat), to tell
 * how much of it went to other processes during the run; -1 if unknown. */
double machine_busy_seconds(void)
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

double process_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static volatile uint64_t calibration_sink;

/* A fixed piece of CPU work, timed: the machine's speed now (median of 31
 * runs, ns). Compared at the start and the end to catch a machine that
 * slowed down mid-run (host contention, frequency), which /proc/stat in a
 * guest may not show. */
double cpu_work_ns(void)
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

double median_of_values(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------------ series */

void series_init(series *s, size_t cap)
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

void series_add(series *s, int64_t ns)
{
    if (s->n < s->cap)
        s->v[s->n++] = (double)ns;
}

/* Nearest-rank percentiles over samples plus misses, misses counted as
 * +infinity; the mean is over the samples that completed. */
stats series_stats(const series *s)
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

double median_of(const series *s)
{
    return series_stats(s).p50;
}

double p99_of(const series *s)
{
    return series_stats(s).p99;
}

double percentile_of(const series *s, double p)
{
    size_t total = s->n + s->miss;
    if (total == 0)
        return NAN;
    size_t rank = (size_t)ceil(p * (double)total); /* 1-based */
    if (rank < 1)
        rank = 1;
    if (rank > s->n)
        return INFINITY;
    double *c = malloc(s->n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, s->v, s->n * sizeof *c);
    qsort(c, s->n, sizeof *c, cmp_double);
    double r = c[rank - 1];
    free(c);
    return r;
}
