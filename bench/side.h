/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* One application of a bench that runs two in one process: created,
 * driven (poll() on its fd and a notify pipe, then dispatch) and freed on
 * a thread of its own, and joined to the other side by continuity with
 * unicast peers on 127.0.0.1. The handoff pair (pair.c) and the documents
 * pair (documents_pair.c) are two sides each; what their applications do
 * is theirs (struct side_hooks). */
#ifndef BENCH_SIDE_H
#define BENCH_SIDE_H

#include <handoff.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct side;

/* What the owner of a side does on its thread. */
struct side_hooks {
    /* Makes the application (side_new_app), the sender's activity and
     * starts continuity (side_start_continuity); 0, or -1 with sd->error. */
    int (*setup)(struct side *sd);
    /* One step of the owner's work, each turn of the loop; returns how
     * long poll() may block (ms). NULL: `idle_ms`. */
    int (*step)(struct side *sd);
    int idle_ms;
    /* Frees what the owner made besides app, responder and activity (NULL: nothing). */
    void (*teardown)(struct side *sd);
};

struct side {
    void *owner;                     /* the pair this side is one of */
    const struct side_hooks *hooks;
    _Atomic int *stop;               /* the owner's: set, then side_halt */
    int is_sender;
    int beacon_port;
    char peer_text[2][32];
    const char *peers[2];
    size_t peer_count;
    int notify[2]; /* a pipe: another thread wakes this one's poll() */
    handoff_application *app;
    handoff_responder *responder;
    handoff_activity *activity; /* sender: the activity offered */
    pthread_t thread;
    int started;
    _Atomic int ready; /* 1 running, -1 setup failed */
    char error[200];
};

/* A side that has no thread nor pipe yet. */
void side_init(struct side *sd, void *owner, const struct side_hooks *hooks, _Atomic int *stop, int is_sender);
/* Gives both sides a beacon port (`sender_port`, `receiver_port`; 0 picks
 * a free one; never the same) and each the other as its first peer. 0, or
 * -1 when no UDP port is free. */
int side_link(struct side *sender, struct side *receiver, int sender_port, int receiver_port);
/* Opens the notify pipe, starts the thread and waits (`timeout_ns` at
 * most) until its setup is done: 0 running, else -1 with sd->error. */
int side_start(struct side *sd, int64_t timeout_ns);
/* Wakes a side's thread. */
void poke(struct side *sd);
/* Joins a started side's thread; the owner set *stop first. */
void side_halt(struct side *sd);
/* Closes the notify pipe (after side_halt). */
void side_close(struct side *sd);

/* For the setup hook: the application of manifest `m` (freed here), with
 * `d` and a responder with `rc`, both with `sd` as user data. 0, or -1
 * with sd->error. */
int side_new_app(struct side *sd, handoff_manifest *m, const handoff_application_delegate *d,
                 const handoff_responder_callbacks *rc);
/* For the setup hook: fills what an in-process device needs (its name,
 * `device_id`: two devices in one process each need their own; its
 * beacon port, its peers, no multicast, an ephemeral channel port and
 * short fetch and connect timeouts). */
void side_embedded_options(const struct side *sd, handoff_continuity_options *o, const char *device_id);
/* For the setup hook: starts continuity with `o` and the account of
 * `key`; 0, or -1 with sd->error ("`what`: why"). */
int side_start_continuity(struct side *sd, handoff_continuity_options *o, const unsigned char *key,
                          size_t key_size, const char *what);

#endif
