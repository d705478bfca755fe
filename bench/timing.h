/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Time and statistics, shared by the benches: one clock (CLOCK_MONOTONIC)
 * for every thread, what the machine was doing meanwhile, and series of
 * samples with their nearest-rank percentiles. */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>

int64_t now_ns(void);
void sleep_ns(int64_t ns);
/* Milliseconds (rounded up, clamped to [0, cap]) until `deadline`. */
int ms_until(int64_t deadline, int cap);

/* CPU time the whole machine spent busy, in seconds (/proc/stat); -1 if unknown. */
double machine_busy_seconds(void);
double process_cpu_seconds(void);
/* A fixed piece of CPU work, timed (median of 31 runs, ns): the machine's speed now. */
double cpu_work_ns(void);

int cmp_double(const void *a, const void *b);
/* Sorts v and returns its median (the mean of the middle two when n is even). */
double median_of_values(double *v, size_t n);

typedef struct series {
    double *v; /* samples, ns */
    size_t n, cap;
    size_t miss; /* rounds that timed out or failed: +inf */
} series;

void series_init(series *s, size_t cap);
void series_add(series *s, int64_t ns);

typedef struct stats {
    size_t n, miss;
    double p50, p99, mean, min, max; /* ns; INFINITY when a miss decides it */
} stats;

stats series_stats(const series *s);
double median_of(const series *s);
double p99_of(const series *s);
/* The nearest-rank percentile `p` (0 < p <= 1) of samples plus misses,
 * misses counted as +infinity; NAN for an empty series. */
double percentile_of(const series *s, double p);

#endif
