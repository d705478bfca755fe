/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* `handoff agent` processes for the agent rows, and what they cost. */
#ifndef BENCH_AGENTS_H
#define BENCH_AGENTS_H

#include "broker.h"

#include <sys/types.h>

/* Two `handoff agent` processes as two devices on loopback: each with its
 * own XDG_CONFIG_HOME (the bench's account, a device identity of its own),
 * XDG_RUNTIME_DIR and socket, unicast beacons to the other's port, and a
 * channel on 127.0.0.1. [0] serves the sender app, [1] the receiver. */
struct agents {
    int both;    /* 0: only [1], the receiver's; the sender embedded */
    int relay;   /* both, reaching each other only through `broker` */
    const char *tool;
    struct broker broker;
    int port[2]; /* beacon ports: [0] the sender's device, [1] the receiver's */
    char dir[64];
    char socket[2][160];
    pid_t pid[2];
    int watched; /* where in agent_pids its pids are: 0, 2 or 4 */
    long wakeups[2], cpu_us[2]; /* at the start of its rounds (agents_mark) */
    char why[240];
};

/* 0 when its agents listen (both: two, else only [1]); else -1 with ag->why. */
int agents_start(struct agents *ag, const char *tool, int both);
/* Two agents whose devices reach each other only through a mosquitto
 * started here on 127.0.0.1 (broker.h): `handoff relay set` in both
 * configurations, no --peer, no multicast. 0 once both listen and say
 * "relay: connected"; else -1 with ag->why, or -2 when mosquitto is not
 * installed (ag->why says so). */
int agents_start_relay(struct agents *ag, const char *tool);
/* After the rounds: 0 when `handoff doctor` through the receiver's agent
 * reports the relay as a source that heard the other device, its line in
 * `out`; else -1 with what it said instead. */
int agents_relay_check(struct agents *ag, char *out, size_t out_size);
/* Notes what each agent has cost so far, and reports the cost per round since. */
void agents_mark(struct agents *ag);
void agents_report(struct agents *ag, long rounds);
void agents_stop(struct agents *ag);
/* The watchdog's end: every agent still running, killed. */
void agents_kill_all(void);

#endif
