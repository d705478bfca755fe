/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The bench's table: one row per measurement, each set once by the part
 * that measures it; the targets, the breakdowns and the analysis printed
 * after it; the completion check that decides the exit status. */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include "timing.h"

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
    ROW_AGENT_RELAY,
    ROW_EVENT,
    ROW_RAW_UDP_RTT,
    ROW_COLD,
    ROW_COUNT
};

/* BENCH_QUICK set: only the raw TCP round trip and the four warm rows. */
extern int quick;

/* The run's start (wall clock, machine and process CPU) and the CPU speed
 * check at its start and end. */
void report_start(void);
void report_speed_check(int at_end);

void set_result(int row, const series *s);
/* Rounds of `row` that produced a sample yet did not complete. */
void set_incomplete(int row, size_t n);
void note(int row, const char *fmt, ...);
/* A row that cannot run here for want of an optional program (the relay's
 * mosquitto): its note says why, and the completion check passes it over. */
void skip_row(int row, const char *fmt, ...);
/* A row whose figures are not what it claims (the relay row's path
 * check): its note says why, and the completion check fails the run. */
void fail_row(int row, const char *fmt, ...);
/* A breakdown line, printed after the table. */
void extra_printf(const char *fmt, ...);

/* Prints the report once (the main thread at the end, or the watchdog). */
void print_report(const char *why);
/* Prints each row that completed fewer than 95% of its rounds, or did not
 * run; returns the exit status (0 or 1). */
int check_rounds(void);

/* Medians kept for the analysis (ns; NAN when not measured). */
extern double g_fetch_fresh, g_fetch_warm, g_confirm_fresh, g_confirm_warm, g_set_flag_call,
    g_thread_start, g_encode, g_decode, g_to_wire, g_rx_side, g_call;
extern int g_late_events;

#endif
