/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* What the bench's parts share: the applications' vocabulary and account,
 * the quiet time between rounds, and each part's entry point. */
#ifndef BENCH_BENCH_H
#define BENCH_BENCH_H

#include <handoff.h>

#include <stddef.h>
#include <stdint.h>

#define ACTIVITY_TYPE "com.example.bench.view"
#define BEACON_TYPE "com.example.bench.beacon"
#define MSG 64 /* a raw baseline's message, bytes */

#ifndef ROUND_GAP_NS
#define ROUND_GAP_NS (2LL * 1000000) /* quiet time between rounds */
#endif
#define SETUP_TIMEOUT_NS (5LL * 1000000000)

/* A fixed key: every application of this process shares the "account". */
extern const unsigned char bench_key[32];

/* The bench's manifest: ACTIVITY_TYPE and BEACON_TYPE; NULL with `why` set. */
handoff_manifest *bench_manifest(char *why, size_t why_size);
/* The userInfo the sender saves each round (and the coding row encodes):
 * "round" and four map-viewport entries. */
handoff_value *bench_user_info(long round);

/* raw.c: the raw baselines. */
void raw_tcp_rtt(int row);
void raw_tcp_fresh(void);
void raw_oneway(int row, int udp, int64_t gap_ns, int warmup, int n);
void raw_udp_rtt(void);
void measure_thread_start(void);
#define RAW_WAKE_WARMUP 100
#define RAW_WAKE_N 2000
#define RAW_IDLE_N 300

/* floors.c: the library's paths re-enacted in plain C. */
void floor_fetch(int row, int fresh);
void floor_beacon(void);

/* coding.c: the payload's encode and decode. */
void measure_coding(void);

/* cold.c: receiver start -> activity_available. */
void measure_cold_start(void);

#endif
