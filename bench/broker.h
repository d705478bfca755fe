/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A mosquitto on 127.0.0.1 for the relay row (agents.c): the broker the
 * two agents' devices reach each other through. */
#ifndef BENCH_BROKER_H
#define BENCH_BROKER_H

#include <stddef.h>
#include <sys/types.h>

struct broker {
    pid_t pid;
    int port;      /* its MQTT listener on 127.0.0.1 */
    char log[160]; /* its stderr */
};

/* Starts mosquitto (found in $PATH, /usr/sbin or /sbin) with a
 * configuration written in `dir`: one listener on 127.0.0.1, anonymous,
 * no persistence. Returns 0 once it accepts connections (b->pid set:
 * the caller registers it with the watchdog and stops it with
 * broker_stop); -1 with `why` when it did not start; -2 when mosquitto
 * is not installed. */
int broker_start(struct broker *b, const char *dir, char *why, size_t why_size);
/* SIGTERM, then SIGKILL after 5 s; reaps it. */
void broker_stop(struct broker *b);

#endif
